import { PostgresAdapter, sql, type Transaction } from 'kysely';
import type { DB, NewPost } from '../types.ts';

/**
 * Inserts a post and its links to `tagIds` (with the post's date); returns its id. On PostgreSQL
 * in one statement (a data-modifying WITH): the insert takes the commit-order lock (migration
 * 017), held to the commit, so every round trip after it is one every other writer waits for.
 * SQLite has no data-modifying WITH and needs none (one writer at a time): two statements.
 */
export async function insertPostLinked(trx: Transaction<DB>, post: NewPost, tagIds: number[]): Promise<number> {
  if (tagIds.length === 0 || !(trx.getExecutor().adapter instanceof PostgresAdapter)) {
    const { id } = await trx.insertInto('posts').values(post).returning('id').executeTakeFirstOrThrow();
    if (tagIds.length > 0)
      await trx
        .insertInto('post_tags')
        .values(tagIds.map((tag_id) => ({ post_id: id, tag_id, created_at: post.created_at })))
        .execute();
    return id;
  }
  const { id } = await trx
    .with('p', (db) => db.insertInto('posts').values(post).returning(['id', 'created_at']))
    .with('l', (db) =>
      db
        .insertInto('post_tags')
        .columns(['post_id', 'tag_id', 'created_at'])
        .expression(sql`SELECT p.id, t.tag_id, p.created_at FROM p, unnest(CAST(${tagIds} AS integer[])) AS t(tag_id)`),
    )
    .selectFrom('p')
    .select('id')
    .executeTakeFirstOrThrow();
  return id;
}
