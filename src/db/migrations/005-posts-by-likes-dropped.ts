import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

/**
 * posts_by_likes counted the posts of each rating and like count, so a list by rating and
 * minimum likes could be totalled without counting rows. The search's columns strategy now
 * counts likes in memory (modules/posts/post-numbers.ts) and nothing reads the table: its
 * triggers, run on every like, go with it.
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  for (const name of ['posts_liked_insert', 'posts_liked_delete', 'posts_liked_update']) {
    await sql.raw(dialect === 'sqlite' ? `DROP TRIGGER IF EXISTS ${name}` : `DROP TRIGGER IF EXISTS ${name} ON posts`).execute(db);
    if (dialect === 'postgres') await sql.raw(`DROP FUNCTION IF EXISTS ${name}()`).execute(db);
  }
  await sql.raw('DROP TABLE posts_by_likes').execute(db);
}
