import { Migrator, sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from './dialect.ts';
import * as initial from './migrations/001-initial.ts';
import * as loginThrottle from './migrations/002-login-throttle.ts';
import * as videoCodecs from './migrations/003-video-codecs.ts';
import * as counters from './migrations/004-counters-and-search.ts';
import * as narrowed from './migrations/005-counter-triggers-narrowed.ts';
import * as tagString from './migrations/006-post-tag-string.ts';
import * as ratingLikes from './migrations/007-rating-likes-index.ts';
import * as noHistograms from './migrations/008-no-stat4-histograms.ts';
import * as statementCounters from './migrations/009-pg-statement-counters.ts';
import * as compactSearch from './migrations/010-compact-search-index.ts';
import * as storedListItems from './migrations/011-stored-list-items.ts';
import * as tagChangeLog from './migrations/012-tag-change-log.ts';
import * as postsByLikes from './migrations/013-posts-by-likes.ts';
import * as titleWords from './migrations/014-title-words.ts';
import * as titleChangeLog from './migrations/015-title-change-log.ts';
import * as pgTitleWords from './migrations/016-pg-title-words.ts';

/** Migrations are plain modules with up(db, dialect); listed here in order. */
const MIGRATIONS: Record<string, { up(db: Kysely<any>, dialect: DialectName): Promise<void> }> = {
  '001-initial': initial,
  '002-login-throttle': loginThrottle,
  '003-video-codecs': videoCodecs,
  '004-counters-and-search': counters,
  '005-counter-triggers-narrowed': narrowed,
  '006-post-tag-string': tagString,
  '007-rating-likes-index': ratingLikes,
  '008-no-stat4-histograms': noHistograms,
  '009-pg-statement-counters': statementCounters,
  '010-compact-search-index': compactSearch,
  '011-stored-list-items': storedListItems,
  '012-tag-change-log': tagChangeLog,
  '013-posts-by-likes': postsByLikes,
  '014-title-words': titleWords,
  '015-title-change-log': titleChangeLog,
  '016-pg-title-words': pgTitleWords,
};

export async function migrateToLatest(db: Kysely<any>, dialect: DialectName): Promise<void> {
  const migrations: Record<string, Migration> = {};
  for (const [name, m] of Object.entries(MIGRATIONS)) {
    migrations[name] = { up: (d) => m.up(d, dialect) };
  }
  // Kysely looks for its bookkeeping tables in every schema unless told which one: with two
  // schemas in one PostgreSQL database (tests, or several deployments) it would find the other's.
  const migrationTableSchema =
    dialect === 'postgres' ? (await sql<{ s: string }>`select current_schema() as s`.execute(db)).rows[0]?.s : undefined;
  const migrator = new Migrator({ db, migrationTableSchema, provider: { getMigrations: async () => migrations } });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${(error as Error)?.message ?? error}`);
  }
}
