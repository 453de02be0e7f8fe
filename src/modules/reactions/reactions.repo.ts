import { sql } from 'kysely';
import { moveCount } from '../../db/counters.ts';
import type { Db, Tx } from '../../db/engine.ts';

export type Kind = 'likes' | 'favorites';
/** The counter on posts each kind of reaction moves. */
const COUNTER = { likes: 'like_count', favorites: 'favorite_count' } as const;

/** Whether the post exists. */
export async function postExists(trx: Tx, postId: number): Promise<boolean> {
  const exists = await trx.selectFrom('posts').select('id').where('id', '=', postId).executeTakeFirst();
  return exists !== undefined;
}

/** Adds the user's like or favorite of the post unless it is there; how many rows appeared (0 or 1). */
export async function insertReaction(trx: Tx, kind: Kind, userId: number, postId: number, now: number): Promise<bigint> {
  const r = await trx
    .insertInto(kind)
    .values({ user_id: userId, post_id: postId, created_at: now })
    .onConflict((oc) => oc.columns(['user_id', 'post_id']).doNothing())
    .executeTakeFirst();
  return r.numInsertedOrUpdatedRows ?? 0n;
}

/** Removes the user's like or favorite of the post; how many rows went (0 or 1). */
export async function deleteReaction(trx: Tx, kind: Kind, userId: number, postId: number): Promise<bigint> {
  const r = await trx.deleteFrom(kind).where('user_id', '=', userId).where('post_id', '=', postId).executeTakeFirst();
  return r.numDeletedRows;
}

/** Moves the post's like or favorite count by `delta`. */
export async function movePostCounter(trx: Tx, kind: Kind, postId: number, delta: number): Promise<void> {
  await moveCount(trx, 'posts', COUNTER[kind], postId, delta).execute();
}

/** The post's like or favorite count; throws when there is no such post. */
export async function postCounter(trx: Tx, kind: Kind, postId: number): Promise<number> {
  const column = COUNTER[kind];
  const row = await trx.selectFrom('posts').select(column).where('id', '=', postId).executeTakeFirstOrThrow();
  return (row as Record<string, number>)[column];
}

/** One page of the ids of a user's favorites, most recently favorited first, and how many they have. */
export async function favoritesPage(db: Db, userId: number, offset: number, limit: number) {
  const [rows, total] = await Promise.all([
    db
      .selectFrom('favorites')
      .select('post_id')
      .where('user_id', '=', userId)
      .orderBy('created_at', 'desc')
      .orderBy('post_id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute(),
    db.selectFrom('favorites').select(sql<number>`count(*)`.as('n')).where('user_id', '=', userId).executeTakeFirstOrThrow(),
  ]);
  return { postIds: rows.map((r) => r.post_id), total: Number(total.n) };
}
