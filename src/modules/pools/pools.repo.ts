import type { ExpressionBuilder, Selectable } from 'kysely';
import type { Db, Tx } from '../../db/engine.ts';
import type { DB, PoolsTable } from '../../db/types.ts';

/** A pool with its creator's name. */
export type PoolRow = Selectable<PoolsTable> & { username: string };

/** Public pools, plus the viewer's own private ones. */
export const visibleTo = (viewerId: number | null) => (eb: ExpressionBuilder<DB, 'pools'>) =>
  viewerId === null ? eb('pools.is_public', '=', 1) : eb.or([eb('pools.is_public', '=', 1), eb('pools.creator_id', '=', viewerId)]);

export async function listPools(db: Db, viewerId: number | null, offset: number, limit: number) {
  const [rows, total] = await Promise.all([
    db
      .selectFrom('pools')
      .innerJoin('users', 'users.id', 'pools.creator_id')
      .selectAll('pools')
      .select('users.username')
      .where(visibleTo(viewerId))
      .orderBy('pools.updated_at', 'desc')
      .orderBy('pools.id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute(),
    db
      .selectFrom('pools')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where(visibleTo(viewerId))
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(total.n) };
}

/** The pool with its creator's name, or undefined. */
export async function findPool(db: Db, id: number): Promise<PoolRow | undefined> {
  return db
    .selectFrom('pools')
    .innerJoin('users', 'users.id', 'pools.creator_id')
    .selectAll('pools')
    .select('users.username')
    .where('pools.id', '=', id)
    .executeTakeFirst();
}

/** The ids of the pool's posts, in the pool's order. */
export async function poolPostIds(db: Db, poolId: number): Promise<number[]> {
  const rows = await db.selectFrom('pool_posts').select('post_id').where('pool_id', '=', poolId).orderBy('position').execute();
  return rows.map((r) => r.post_id);
}

/** Deletes all of the pool's posts from its order. */
export async function deletePoolPosts(trx: Tx, poolId: number): Promise<void> {
  await trx.deleteFrom('pool_posts').where('pool_id', '=', poolId).execute();
}

/** Adds the posts to the pool at positions 1..n, 500 rows a statement. */
export async function insertPoolPosts(trx: Tx, poolId: number, postIds: number[], now: number): Promise<void> {
  for (let i = 0; i < postIds.length; i += 500) {
    const chunk = postIds.slice(i, i + 500);
    await trx
      .insertInto('pool_posts')
      .values(chunk.map((post_id, j) => ({ pool_id: poolId, post_id, position: i + j + 1, added_at: now })))
      .execute();
  }
}

/** Sets the pool's post count and its update time. */
export async function setPoolCount(trx: Tx, poolId: number, count: number, now: number): Promise<void> {
  await trx.updateTable('pools').set({ post_count: count, updated_at: now }).where('id', '=', poolId).execute();
}

/**
 * Locks the pool's row for the rest of the transaction (an update that changes nothing); false
 * when there is no such pool.
 */
export async function lockPool(trx: Tx, poolId: number): Promise<boolean> {
  const locked = await trx
    .updateTable('pools')
    .set((eb) => ({ post_count: eb.ref('post_count') }))
    .where('id', '=', poolId)
    .executeTakeFirst();
  return locked.numUpdatedRows !== 0n;
}

/** Which of the post ids are posts. */
export async function existingPosts(db: Db, ids: number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  return new Set((await db.selectFrom('posts').select('id').where('id', 'in', ids).execute()).map((r) => r.id));
}

export interface NewPoolRow {
  creatorId: number;
  name: string;
  description: string;
  isPublic: boolean;
  now: number;
}

/** Adds an empty pool; its id. */
export async function insertPool(trx: Tx, p: NewPoolRow): Promise<number> {
  const { id } = await trx
    .insertInto('pools')
    .values({
      creator_id: p.creatorId,
      name: p.name,
      description: p.description,
      is_public: p.isPublic ? 1 : 0,
      post_count: 0,
      created_at: p.now,
      updated_at: p.now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
}

export interface PoolChanges {
  name?: string;
  description?: string;
  isPublic?: boolean;
}

/** Sets the fields given and the pool's update time. */
export async function updatePoolRow(trx: Tx, id: number, changes: PoolChanges, now: number): Promise<void> {
  await trx
    .updateTable('pools')
    .set({
      updated_at: now,
      ...(changes.name !== undefined ? { name: changes.name } : {}),
      ...(changes.description !== undefined ? { description: changes.description } : {}),
      ...(changes.isPublic !== undefined ? { is_public: changes.isPublic ? 1 : 0 } : {}),
    })
    .where('id', '=', id)
    .execute();
}

/** Deletes the pool (its posts' places in it go with it). */
export async function deletePool(trx: Tx, id: number): Promise<void> {
  await trx.deleteFrom('pools').where('id', '=', id).execute();
}
