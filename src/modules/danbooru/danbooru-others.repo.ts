import { sql } from 'kysely';
import type { Database, Db } from '../../db/engine.ts';
import { visibleTo } from '../pools/pools.repo.ts';

/**
 * A page of comments with their authors' names, only those of existing posts (the join): a post's
 * oldest first (as a thread reads), or without a post (null) the newest.
 */
export async function findComments(db: Db, postId: number | null, limit: number, offset: number) {
  let query = db
    .selectFrom('comments')
    .innerJoin('posts', 'posts.id', 'comments.post_id')
    .innerJoin('users', 'users.id', 'comments.user_id')
    .select(['comments.id', 'comments.post_id', 'comments.user_id', 'comments.content', 'comments.created_at', 'users.username']);
  if (postId !== null) {
    query = query.where('comments.post_id', '=', postId).orderBy('comments.created_at').orderBy('comments.id');
  } else {
    query = query.orderBy('comments.created_at', 'desc').orderBy('comments.id', 'desc');
  }
  return query.limit(limit).offset(offset).execute();
}

/** Our pool names have spaces where Danbooru's have underscores; searches compare in Danbooru's spelling. */
const underscored = sql<string>`replace(pools.name, ' ', '_')`;
const ORDERS = { updated_at: 'pools.updated_at', created_at: 'pools.created_at', name: 'pools.name', post_count: 'pools.post_count' } as const;

/** Pools the viewer may see: public ones and their own private ones (the rule of pools.repo.ts). */
function visiblePools(db: Db, viewerId: number | null) {
  return db.selectFrom('pools').selectAll('pools').where(visibleTo(viewerId));
}
export type PoolRow = Awaited<ReturnType<ReturnType<typeof visiblePools>['execute']>>[number];

export interface PoolSearch {
  /** Names matching this glob, in Danbooru's spelling (underscores). */
  matches?: string;
  /** Names containing this, in Danbooru's spelling. */
  contains?: string;
  ids?: number[];
  /** Danbooru's order word: updated_at (else), created_at, name or post_count. */
  order?: string;
  limit: number;
  offset: number;
}

/** A page of the pools the viewer may see, by the search's order (name ascending, the others newest or largest first), then id descending. */
export async function findPools(db: Database, viewerId: number | null, s: PoolSearch): Promise<PoolRow[]> {
  let query = visiblePools(db, viewerId);
  if (s.matches) query = query.where(db.globInsensitive(underscored, s.matches));
  if (s.contains) query = query.where(db.containsInsensitive(underscored, s.contains));
  if (s.ids !== undefined) query = query.where('pools.id', 'in', s.ids);
  const order = ORDERS[s.order as keyof typeof ORDERS] ?? ORDERS.updated_at;
  return query
    .orderBy(order, order === 'pools.name' ? 'asc' : 'desc')
    .orderBy('pools.id', 'desc')
    .limit(s.limit)
    .offset(s.offset)
    .execute();
}

/** The pool by id when the viewer may see it, else undefined. */
export async function findPool(db: Db, viewerId: number | null, id: number): Promise<PoolRow | undefined> {
  return visiblePools(db, viewerId).where('pools.id', '=', id).executeTakeFirst();
}

/** The posts of these pools, each pool's in its order. */
export async function findPoolPostLinks(db: Db, poolIds: number[]) {
  return db.selectFrom('pool_posts').select(['pool_id', 'post_id']).where('pool_id', 'in', poolIds).orderBy('position').execute();
}

/** When the user liked the post, or undefined when they have not. */
export async function findLikeTime(db: Db, userId: number, postId: number): Promise<number | undefined> {
  const row = await db.selectFrom('likes').select('created_at').where('user_id', '=', userId).where('post_id', '=', postId).executeTakeFirst();
  return row?.created_at;
}
