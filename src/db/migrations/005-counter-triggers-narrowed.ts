import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

/**
 * For databases made while 004 was still changing: the version counter moves only on post edits
 * (rating, title, updated_at), not on like/comment counter updates, and the rating index is gone.
 * Idempotent, so a database that ran the final 004 is left as it was.
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  await sql.raw('DROP INDEX IF EXISTS posts_rating').execute(db);
  if (dialect === 'sqlite') {
    await sql.raw('DROP TRIGGER IF EXISTS posts_counted_update').execute(db);
    await sql.raw(`CREATE TRIGGER posts_counted_update AFTER UPDATE OF content_rating, title, updated_at ON posts BEGIN
       UPDATE counters SET value = value - 1 WHERE name = 'posts:' || old.content_rating;
       UPDATE counters SET value = value + 1 WHERE name = 'posts:' || new.content_rating;
       UPDATE counters SET value = value + 1 WHERE name = 'version'; END`).execute(db);
  } else {
    await sql.raw('DROP TRIGGER IF EXISTS posts_counted ON posts').execute(db);
    await sql.raw(`CREATE TRIGGER posts_counted AFTER INSERT OR UPDATE OF content_rating, title, updated_at OR DELETE ON posts FOR EACH ROW EXECUTE FUNCTION posts_counted()`).execute(db);
  }
}
