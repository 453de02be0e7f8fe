import type { Database } from './engine.ts';
import { sql, type Kysely } from 'kysely';

/**
 * SQLite plans with table statistics only once ANALYZE has run: without them it guesses, and at a
 * million posts some guesses cost seconds. Gather them once when a big database has none
 * (PostgreSQL's autovacuum keeps its own).
 */
export async function ensureStatistics(db: Kysely<any>): Promise<void> {
  const stats = await sql<{ n: number }>`SELECT count(*) AS n FROM sqlite_master WHERE name = 'sqlite_stat1'`.execute(db);
  if (Number(stats.rows[0]?.n) > 0) return;
  const posts = await db.selectFrom('counters').select('value').where('name', '=', 'posts').executeTakeFirst();
  if (Number(posts?.value ?? 0) < 10_000) return;
  await sql`ANALYZE`.execute(db);
  await dropHistograms(db);
}

/**
 * Keeps the per-index row counts (sqlite_stat1) and drops the value histograms (sqlite_stat4).
 * With histograms SQLite costs a date range by where its bounds fall, and for some ranges it
 * chose to skip-scan the comments index or walk every user, then sort, instead of reading the
 * date index in order, which is hundreds of times cheaper.
 */
export async function dropHistograms(db: Kysely<any>): Promise<void> {
  const has = await sql<{ n: number }>`SELECT count(*) AS n FROM sqlite_master WHERE name = 'sqlite_stat4'`.execute(db);
  if (Number(has.rows[0]?.n) === 0) return;
  await sql`DELETE FROM sqlite_stat4`.execute(db);
  await sql`ANALYZE sqlite_schema`.execute(db); // reloads the statistics the planner uses
}

/**
 * Merges SQLite's title index (FTS5) into one segment. Rows added one at a time (uploads, the
 * seeder) leave it in many segments that every search walks, so a search costs several times what
 * it costs over one segment. PostgreSQL's trigram index needs nothing of the kind.
 */
export async function compactSearchIndex(db: Database): Promise<void> {
  if (db.engine === 'sqlite') await sql`INSERT INTO posts_fts(posts_fts) VALUES ('optimize')`.execute(db);
}
