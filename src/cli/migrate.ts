import { loadConfig } from '../config.ts';
import { databaseLabel, migrate, openDatabase } from '../db/database.ts';
import type { CommandIo } from './seed.ts';

export const MIGRATE_USAGE = `  migrate
        Bring the database's schema up to this version (creating the database if there is none), and
        print each migration applied. Run it before starting new instances with MIGRATE_ON_START=false.
`;

const STD_IO: CommandIo = { env: process.env, out: process.stdout, err: process.stderr };

/** `imageboard migrate`: exit 0 once the schema is current, whether or not anything was applied. */
export async function migrateCommand(args: string[], io: CommandIo = STD_IO): Promise<number> {
  if (args.length > 0) {
    io.err.write(`Usage:\n${MIGRATE_USAGE}`);
    return 2;
  }
  const config = loadConfig(io.env);
  const where = { url: config.databaseUrl, dataDir: config.dataDir };
  io.err.write(`Using database: ${databaseLabel(where)}\n`);
  const database = await openDatabase({ ...where, poolSize: 1, migrations: 'none' });
  try {
    const applied = await migrate(database);
    io.out.write(
      applied.length === 0
        ? 'The schema is up to date: no migration to apply.\n'
        : `Applied ${applied.length} migration(s):\n${applied.map((name) => `  ${name}\n`).join('')}The schema is up to date.\n`,
    );
    return 0;
  } finally {
    await database.close();
  }
}
