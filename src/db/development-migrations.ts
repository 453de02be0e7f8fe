import { sql, type Kysely } from 'kysely';
import type { DialectName } from './dialect.ts';

/** The migrations of the development versions, in order; 001-initial-schema leaves the schema they left. */
export const DEVELOPMENT_MIGRATIONS = [
  '001-initial',
  '002-login-throttle',
  '003-video-codecs',
  '004-counters-and-search',
  '005-counter-triggers-narrowed',
  '006-post-tag-string',
  '007-rating-likes-index',
  '008-no-stat4-histograms',
  '009-pg-statement-counters',
  '010-compact-search-index',
  '011-stored-list-items',
  '012-tag-change-log',
  '013-posts-by-likes',
  '014-title-words',
  '015-title-change-log',
  '016-pg-title-words',
];

/**
 * A database made by a development version (a board, a benchmark dataset) records the migrations
 * above, which Kysely no longer knows and would refuse. With all of them applied its schema is the
 * initial one, so their rows become the initial migration's row; with only some, it cannot be
 * brought up to date and is refused with a way out.
 */
export async function adoptDevelopmentMigrations(db: Kysely<any>, dialect: DialectName, initial: string): Promise<void> {
  const table =
    dialect === 'sqlite'
      ? sql<{ n: number }>`SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'kysely_migration'`
      : sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = current_schema() AND tablename = 'kysely_migration'`;
  if (Number((await table.execute(db)).rows[0]?.n) === 0) return;
  const rows = await db.selectFrom('kysely_migration').select(['name', 'timestamp']).where('name', 'in', DEVELOPMENT_MIGRATIONS).orderBy('name').execute();
  if (rows.length === 0) return;
  const last = DEVELOPMENT_MIGRATIONS.at(-1)!;
  if (rows.length < DEVELOPMENT_MIGRATIONS.length) {
    throw new Error(
      `this database was made by a development version whose last migration was ${rows.at(-1)!.name}: ` +
        `open it once with a version that still has src/db/migrations/${last}.ts, or start a new one`,
    );
  }
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('kysely_migration').where('name', 'in', DEVELOPMENT_MIGRATIONS).execute();
    // Another process starting on the same PostgreSQL database may have done the same meanwhile.
    await trx
      .insertInto('kysely_migration')
      .values({ name: initial, timestamp: rows.at(-1)!.timestamp })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
  });
}
