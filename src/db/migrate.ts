import { Migrator, type Kysely, type Migration } from 'kysely';
import type { DialectName } from './dialect.ts';
import * as initial from './migrations/001-initial.ts';
import * as loginThrottle from './migrations/002-login-throttle.ts';

/** Migrations are plain modules with up(db, dialect); listed here in order. */
const MIGRATIONS: Record<string, { up(db: Kysely<any>, dialect: DialectName): Promise<void> }> = {
  '001-initial': initial,
  '002-login-throttle': loginThrottle,
};

export async function migrateToLatest(db: Kysely<any>, dialect: DialectName): Promise<void> {
  const migrations: Record<string, Migration> = {};
  for (const [name, m] of Object.entries(MIGRATIONS)) {
    migrations[name] = { up: (d) => m.up(d, dialect) };
  }
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${(error as Error)?.message ?? error}`);
  }
}
