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
import * as changeLogKinds from './migrations/011-change-log-kinds.ts';
import * as moderation from './migrations/012-moderation.ts';
import * as postHistory from './migrations/013-post-history.ts';
import * as accounts from './migrations/014-accounts.ts';
import * as pendingPosts from './migrations/015-pending-posts.ts';
import * as userPreferences from './migrations/016-user-preferences.ts';
import * as commitOrderLock from './migrations/017-commit-order-lock.ts';
import * as postsLastCommented from './migrations/018-posts-last-commented.ts';
import * as importRecords from './migrations/019-import-records.ts';
import * as events from './migrations/020-events.ts';
import * as webhooks from './migrations/021-webhooks.ts';
import * as savedSearches from './migrations/022-saved-searches.ts';
import * as apiKeyLimits from './migrations/023-api-key-limits.ts';
import * as postsKindIndex from './migrations/024-posts-kind-index.ts';
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
  '011-change-log-kinds': changeLogKinds,
  '012-moderation': moderation,
  '013-post-history': postHistory,
  '014-accounts': accounts,
  '015-pending-posts': pendingPosts,
  '016-user-preferences': userPreferences,
  '017-commit-order-lock': commitOrderLock,
  '018-posts-last-commented': postsLastCommented,
  '019-import-records': importRecords,
  '020-events': events,
  '021-webhooks': webhooks,
  '022-saved-searches': savedSearches,
  '023-api-key-limits': apiKeyLimits,
  '024-posts-kind-index': postsKindIndex,
};

/** Start-up found migrations the database has not run, with migrating at start turned off. */
export class SchemaBehind extends Error {
  override name = 'SchemaBehind';
  constructor(readonly pending: string[]) {
    super(
      `The database schema is older than this version of the server: ${pending.length} migration(s) not applied ` +
        `(${pending.join(', ')}). Run \`npx imageboard migrate\` with the same DATA_DIR / DATABASE_URL first, ` +
        'or set MIGRATE_ON_START=true. The server does not serve with an older schema.',
    );
  }
}

/**
 * Runs the migrations the database has not run yet; returns their names in the order run. `last`
 * stops after that one (tests: a database as an older version left it).
 */
export async function migrateToLatest(db: Kysely<any>, dialect: DialectName, last?: string): Promise<string[]> {
  if (last !== undefined && !(last in MIGRATIONS)) throw new Error(`no migration named ${last}`);
  const migrations: Record<string, Migration> = {};
  for (const [name, m] of Object.entries(MIGRATIONS)) {
    migrations[name] = { up: (d) => m.up(d, dialect) };
    if (name === last) break;
  }
  await adoptDevelopmentMigrations(db, dialect, '001-initial-schema');
  const { error, results } = await (await migrator(db, dialect, migrations)).migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${(error as Error)?.message ?? error}`);
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** The migrations the database has not run, in order; reads only (an empty database lacks them all). */
export async function pendingMigrations(db: Kysely<any>, dialect: DialectName): Promise<string[]> {
  const migrations = Object.fromEntries(Object.keys(MIGRATIONS).map((name) => [name, { up: async () => {} } as Migration]));
  const infos = await (await migrator(db, dialect, migrations)).getMigrations();
  return infos.filter((m) => m.executedAt === undefined).map((m) => m.name);
}

async function migrator(db: Kysely<any>, dialect: DialectName, migrations: Record<string, Migration>): Promise<Migrator> {
  // Kysely looks for its bookkeeping tables in every schema unless told which one: with two
  // schemas in one PostgreSQL database (tests, or several deployments) it would find the other's.
  const migrationTableSchema = dialect === 'postgres' ? (await sql<{ s: string }>`select current_schema() as s`.execute(db)).rows[0]?.s : undefined;
  return new Migrator({ db, migrationTableSchema, provider: { getMigrations: async () => migrations } });
}
