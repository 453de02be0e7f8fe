import { PostgresAdapter, sql, type Transaction } from 'kysely';
import { movePostCounts } from '../counters.ts';
import { commitsAfter } from '../commit-with.ts';
import type { DB, NewPost } from '../types.ts';

/**
 * Inserts a post, its links to `tagIds` (with the post's date) and moves those tags' post counts
 * up by one; returns the post's id. The insert takes the commit-order lock (locks.ts) and the
 * counts lock the tags' rows, both held to the commit, so on PostgreSQL it is one statement (a
 * data-modifying WITH), the transaction's last: between it and the commit no round trip to the
 * client, whose event loop may be slow to send the commit, keeps every other upload waiting.
 * The tags' rows are locked in id order by a sub-select FOR UPDATE, gated by a one-time filter on
 * the post's insert (an InitPlan, run before the sub-select reads a row): the commit-order lock is
 * taken before them, as every writer takes it. SQLite has no data-modifying WITH and needs none
 * (one writer at a time). `commits`: the transaction ends with this statement, which then carries
 * its COMMIT (commit-with.ts), so not even the answer's trip to the client holds those locks.
 */
export async function insertPostLinked(trx: Transaction<DB>, post: NewPost, tagIds: number[], commits = false): Promise<number> {
  if (!(trx.getExecutor().adapter instanceof PostgresAdapter)) return insertPostThenLinks(trx, post, tagIds);
  if (tagIds.length === 0) {
    const query = trx.insertInto('posts').values(post).returning('id');
    return (await (commits ? query.modifyEnd(commitsAfter()) : query).executeTakeFirstOrThrow()).id;
  }
  const ids = sql`CAST(${tagIds} AS integer[])`;
  const locked = sql`SELECT id FROM tags WHERE id = ANY(${ids}) AND (SELECT id FROM p) IS NOT NULL ORDER BY id FOR UPDATE`;
  const query = trx
    .with('p', (db) => db.insertInto('posts').values(post).returning(['id', 'created_at']))
    .with('l', (db) =>
      db
        .insertInto('post_tags')
        .columns(['post_id', 'tag_id', 'created_at'])
        .expression(sql`SELECT p.id, t.tag_id, p.created_at FROM p, unnest(${ids}) AS t(tag_id)`),
    )
    .updateTable('tags')
    .set({ post_count: sql<number>`post_count + 1` })
    .where(sql<boolean>`id IN (${locked})`)
    .returning(sql<number>`(SELECT id FROM p)`.as('id'));
  return (await (commits ? query.modifyEnd(commitsAfter()) : query).executeTakeFirstOrThrow()).id;
}

/** SQLite: the post, then its links and its tags' counts. */
async function insertPostThenLinks(trx: Transaction<DB>, post: NewPost, tagIds: number[]): Promise<number> {
  const { id } = await trx.insertInto('posts').values(post).returning('id').executeTakeFirstOrThrow();
  if (tagIds.length === 0) return id;
  await trx
    .insertInto('post_tags')
    .values(tagIds.map((tag_id) => ({ post_id: id, tag_id, created_at: post.created_at })))
    .execute();
  await movePostCounts(trx, 'tags', new Map(tagIds.map((t) => [t, 1])));
  return id;
}
