import { Migrator, sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from './dialect.ts';
import * as initialSchema from './migrations/001-initial-schema.ts';
import * as postsMd5 from './migrations/002-posts-md5.ts';
import * as ratingLogged from './migrations/003-rating-changes-logged.ts';
import * as countsLogged from './migrations/004-count-changes-logged.ts';
import * as postsByLikesDropped from './migrations/005-posts-by-likes-dropped.ts';
import * as tagCategoriesAliases from './migrations/006-tag-categories-aliases.ts';
import * as jobs from './migrations/007-jobs.ts';
import * as tagImplications from './migrations/008-tag-implications.ts';
import * as jobPosts from './migrations/009-job-posts.ts';
import * as tagHistory from './migrations/010-tag-history.ts';
import { adoptDevelopmentMigrations } from './development-migrations.ts';

/**
 * Migrations are plain modules with up(db, dialect), listed here in order. A shipped migration is
 * never edited and imports nothing from outside src/db/ (migrations.test.ts checks both).
 */
export const MIGRATIONS: Record<string, { up(db: Kysely<any>, dialect: DialectName): Promise<void> }> = {
  '001-initial-schema': initialSchema,
  '002-posts-md5': postsMd5,
  '003-rating-changes-logged': ratingLogged,
  '004-count-changes-logged': countsLogged,
  '005-posts-by-likes-dropped': postsByLikesDropped,
  '006-tag-categories-aliases': tagCategoriesAliases,
  '007-jobs': jobs,
  '008-tag-implications': tagImplications,
  '009-job-posts': jobPosts,
  '010-tag-history': tagHistory,
};

/**
 * Runs the migrations the database has not run yet. `last` stops after that one (tests: a
 * database as an older version left it).
 */
export async function migrateToLatest(db: Kysely<any>, dialect: DialectName, last?: string): Promise<void> {
  if (last !== undefined && !(last in MIGRATIONS)) throw new Error(`no migration named ${last}`);
  const migrations: Record<string, Migration> = {};
  for (const [name, m] of Object.entries(MIGRATIONS)) {
    migrations[name] = { up: (d) => m.up(d, dialect) };
    if (name === last) break;
  }
  await adoptDevelopmentMigrations(db, dialect, '001-initial-schema');
  // Kysely looks for its bookkeeping tables in every schema unless told which one: with two
  // schemas in one PostgreSQL database (tests, or several deployments) it would find the other's.
  const migrationTableSchema = dialect === 'postgres' ? (await sql<{ s: string }>`select current_schema() as s`.execute(db)).rows[0]?.s : undefined;
  const migrator = new Migrator({ db, migrationTableSchema, provider: { getMigrations: async () => migrations } });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${(error as Error)?.message ?? error}`);
  }
}
