import type { Config } from '../config.ts';
import { databaseExists, databaseLabel, openDatabase, type DatabaseOptions } from '../db/database.ts';
import { systemClock, type Deps } from './deps.ts';
import { openMediaStore } from '../storage/open.ts';

/** The database a server opens: the configured one, its migrations run or checked as MIGRATE_ON_START says. */
export const serverDatabase = (config: Config): DatabaseOptions => ({
  url: config.databaseUrl,
  dataDir: config.dataDir,
  poolSize: config.databasePoolSize,
  migrations: config.migrateOnStart ? 'run' : 'check',
});

/** A command that works on an existing board was pointed at a database that does not hold one. */
export class NoDatabase extends Error {}

export interface OpenDepsOptions {
  /** Whether a missing database may be created (empty). Commands that act on a board's data: no. */
  create?: boolean;
  /** Where "Using database: ..." is written. */
  err?: { write(text: string): unknown };
}

/**
 * Deps for a command-line tool: the configured database, the system clock. Close when done. Says
 * which database it uses, so a wrong DATA_DIR or DATABASE_URL shows at once instead of a command
 * quietly working on a new, empty board.
 */
export async function openDeps(config: Config, opts: OpenDepsOptions = {}): Promise<Deps & { close(): Promise<void> }> {
  const where = { url: config.databaseUrl, dataDir: config.dataDir };
  const label = databaseLabel(where);
  (opts.err ?? process.stderr).write(`Using database: ${label}\n`);
  if (!opts.create && !(await databaseExists(where))) {
    throw new NoDatabase(
      `There is no board in ${label}, and this command does not create one.\n` +
        `If the board is elsewhere, set DATA_DIR (SQLite: the folder holding imageboard.db) or DATABASE_URL (PostgreSQL).\n` +
        `For a new board, start the server once (npm start) or run \`npx imageboard seed\`: either creates the database.`,
    );
  }
  const database = await openDatabase({ ...where, poolSize: config.databasePoolSize });
  const media = await openMediaStore(config);
  return {
    db: database,
    config,
    clock: systemClock,
    media,
    startedAt: Date.now(),
    close: async () => {
      await media.close();
      await database.close();
    },
  };
}
