import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

/**
 * "One rating, at least N likes, most liked first" walks this index in order and counts its
 * matches from the index alone; through the likes index it read a row per candidate to test the
 * rating (about 200 ms at a million posts for a rare rating). A rating alone still goes through
 * created_at (three values make a poor filter) and its totals through the counters.
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  await db.schema.createIndex('posts_rating_likes').on('posts').columns(['content_rating', 'like_count', 'created_at', 'id']).execute();
  if (dialect === 'sqlite') {
    // A database that has statistics gets them for the new index too, or SQLite plans it blind.
    const stats = await sql<{ n: number }>`SELECT count(*) AS n FROM sqlite_master WHERE name = 'sqlite_stat1'`.execute(db);
    if (Number(stats.rows[0]?.n) > 0) await sql`ANALYZE posts_rating_likes`.execute(db);
  }
}
