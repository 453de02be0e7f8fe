import type { Kysely, Transaction } from 'kysely';
import type { Deps, Viewer } from '../../core/deps.ts';
import type { DB } from '../../db/types.ts';
import { badRequest, notFound } from '../../core/errors.ts';
import { assertOwnerOrModerator } from '../../core/policy.ts';
import { listItems } from '../posts/posts.repo.ts';
import { parseId } from '../../core/ids.ts';
import { poolJson } from './pools.service.ts';
import type { NewPool, PoolPatch } from './pools.schemas.ts';
import { toId } from '../../core/ids.ts';
import { recordAudit } from '../moderation/audit.repo.ts';

export const MAX_POOL_POSTS = 1000;

async function poolRow(db: Kysely<DB>, id: number) {
  return db
    .selectFrom('pools')
    .innerJoin('users', 'users.id', 'pools.creator_id')
    .selectAll('pools')
    .select('users.username')
    .where('pools.id', '=', id)
    .executeTakeFirst();
}

/** A pool the viewer may see: public, or private and theirs. Anything else is not found. */
async function visiblePool(deps: Deps, viewer: Viewer | null, rawId: string) {
  const row = await poolRow(deps.db, parseId(rawId, 'Pool'));
  if (!row || (row.is_public !== 1 && row.creator_id !== viewer?.id)) return notFound('Pool', rawId);
  return row;
}

async function editablePool(deps: Deps, viewer: Viewer, rawId: string) {
  const row = await visiblePool(deps, viewer, rawId);
  assertOwnerOrModerator(viewer, row.creator_id, 'pool');
  return row;
}

type PoolRow = NonNullable<Awaited<ReturnType<typeof poolRow>>>;

/** A moderator's change to someone else's pool goes in the audit log, in the change's transaction. */
async function auditOthers(trx: Kysely<DB>, deps: Deps, viewer: Viewer, row: PoolRow, edit: 'pool.edit' | 'pool.delete', details: Record<string, unknown>) {
  if (row.creator_id === viewer.id) return;
  await recordAudit(trx, viewer, deps.clock.now(), { action: edit, target: `pool:${row.id}`, details: { name: row.name, creator: row.username, ...details } });
}

async function orderedPostIds(db: Kysely<DB>, poolId: number): Promise<number[]> {
  const rows = await db.selectFrom('pool_posts').select('post_id').where('pool_id', '=', poolId).orderBy('position').execute();
  return rows.map((r) => r.post_id);
}

/** Rewrites a pool's order and count in one go (positions 1..n). */
export async function writeOrder(trx: Transaction<DB>, poolId: number, postIds: number[], now: number): Promise<void> {
  await trx.deleteFrom('pool_posts').where('pool_id', '=', poolId).execute();
  for (let i = 0; i < postIds.length; i += 500) {
    const chunk = postIds.slice(i, i + 500);
    await trx
      .insertInto('pool_posts')
      .values(chunk.map((post_id, j) => ({ pool_id: poolId, post_id, position: i + j + 1, added_at: now })))
      .execute();
  }
  await trx.updateTable('pools').set({ post_count: postIds.length, updated_at: now }).where('id', '=', poolId).execute();
}

/**
 * Locks the pool's row for the rest of the transaction before its order is read: concurrent
 * changes to one pool then take turns instead of rewriting each other's order (PostgreSQL;
 * SQLite runs one writer at a time). A pool deleted meanwhile is not found.
 */
async function lockPool(trx: Transaction<DB>, poolId: number, rawId: string): Promise<void> {
  const locked = await trx
    .updateTable('pools')
    .set((eb) => ({ post_count: eb.ref('post_count') }))
    .where('id', '=', poolId)
    .executeTakeFirst();
  if (locked.numUpdatedRows === 0n) notFound('Pool', rawId);
}

async function existingPosts(db: Kysely<DB>, ids: number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  return new Set((await db.selectFrom('posts').select('id').where('id', 'in', ids).execute()).map((r) => r.id));
}

function postIdList(raw: string[], field: string): number[] {
  const ids = raw.map((r) => toId(r) ?? NaN);
  if (ids.some(Number.isNaN)) badRequest(`field '${field}' holds an id that is not a post id`);
  if (new Set(ids).size !== ids.length) badRequest(`field '${field}' lists a post twice`);
  return ids;
}

export async function getPool(deps: Deps, viewer: Viewer | null, rawId: string) {
  const row = await visiblePool(deps, viewer, rawId);
  const posts = await listItems(deps.db, await orderedPostIds(deps.db, row.id), deps.config);
  return { pool: poolJson(row), posts };
}

export async function createPool(deps: Deps, viewer: Viewer, body: NewPool) {
  const postIds = postIdList(body.postIds ?? [], 'postIds');
  const found = await existingPosts(deps.db, postIds);
  const missing = postIds.filter((id) => !found.has(id));
  if (missing.length) notFound('Post', String(missing[0]));
  const now = deps.clock.now();
  const id = await deps.db.transaction().execute(async (trx) => {
    const { id } = await trx
      .insertInto('pools')
      .values({
        creator_id: viewer.id,
        name: body.name.trim(),
        description: body.description ?? '',
        is_public: body.isPublic === false ? 0 : 1,
        post_count: 0,
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await writeOrder(trx, id, postIds, now);
    return id;
  });
  return { pool: poolJson((await poolRow(deps.db, id))!) };
}

export async function updatePool(deps: Deps, viewer: Viewer, rawId: string, patch: PoolPatch) {
  const row = await editablePool(deps, viewer, rawId);
  await deps.db.transaction().execute(async (trx) => {
    await trx
      .updateTable('pools')
      .set({
        updated_at: deps.clock.now(),
        ...(patch.name !== undefined ? { name: patch.name.trim() } : {}),
        ...(patch.description !== undefined ? { description: patch.description } : {}),
        ...(patch.isPublic !== undefined ? { is_public: patch.isPublic ? 1 : 0 } : {}),
      })
      .where('id', '=', row.id)
      .execute();
    await auditOthers(trx, deps, viewer, row, 'pool.edit', { changes: { ...patch } });
  });
  return { pool: poolJson((await poolRow(deps.db, row.id))!) };
}

export async function deletePool(deps: Deps, viewer: Viewer, rawId: string) {
  const row = await editablePool(deps, viewer, rawId);
  await deps.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('pools').where('id', '=', row.id).execute();
    await auditOthers(trx, deps, viewer, row, 'pool.delete', {});
  });
  return { message: `Pool ${rawId} deleted` };
}

/** Adds a post at a 1-based position (default: the end). Adding a post already there changes nothing. */
export async function addPost(deps: Deps, viewer: Viewer, rawId: string, rawPostId: string, position?: number) {
  const row = await editablePool(deps, viewer, rawId);
  const [postId] = postIdList([rawPostId], 'postId');
  if (!(await existingPosts(deps.db, [postId])).has(postId)) notFound('Post', rawPostId);
  await deps.db.transaction().execute(async (trx) => {
    await lockPool(trx, row.id, rawId);
    const order = await orderedPostIds(trx, row.id);
    if (order.includes(postId)) return;
    if (order.length >= MAX_POOL_POSTS) badRequest(`A pool holds at most ${MAX_POOL_POSTS} posts`);
    const at = Math.min(Math.max((position ?? order.length + 1) - 1, 0), order.length);
    order.splice(at, 0, postId);
    await writeOrder(trx, row.id, order, deps.clock.now());
    await auditOthers(trx, deps, viewer, row, 'pool.edit', { added: String(postId), position: at + 1 });
  });
  return getPool(deps, viewer, rawId);
}

export async function removePost(deps: Deps, viewer: Viewer, rawId: string, rawPostId: string) {
  const row = await editablePool(deps, viewer, rawId);
  const postId = parseId(rawPostId, 'Post');
  await deps.db.transaction().execute(async (trx) => {
    await lockPool(trx, row.id, rawId);
    const order = await orderedPostIds(trx, row.id);
    if (!order.includes(postId)) notFound('Post in this pool', rawPostId);
    await writeOrder(
      trx,
      row.id,
      order.filter((id) => id !== postId),
      deps.clock.now(),
    );
    await auditOthers(trx, deps, viewer, row, 'pool.edit', { removed: String(postId) });
  });
  return getPool(deps, viewer, rawId);
}

/** Sets the whole order: `postIds` must be exactly the pool's posts. */
export async function reorder(deps: Deps, viewer: Viewer, rawId: string, raw: string[]) {
  const row = await editablePool(deps, viewer, rawId);
  const wanted = postIdList(raw, 'postIds');
  await deps.db.transaction().execute(async (trx) => {
    await lockPool(trx, row.id, rawId);
    const current = await orderedPostIds(trx, row.id);
    const same = wanted.length === current.length && wanted.every((id) => current.includes(id));
    if (!same) badRequest("field 'postIds' must list exactly the pool's posts, each once", [{ field: 'postIds', message: 'not the same posts as the pool' }]);
    await writeOrder(trx, row.id, wanted, deps.clock.now());
    await auditOthers(trx, deps, viewer, row, 'pool.edit', { reordered: wanted.map(String) });
  });
  return getPool(deps, viewer, rawId);
}
