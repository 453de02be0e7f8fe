import type { Deps, Viewer } from '../../core/deps.ts';
import type { Tx } from '../../db/engine.ts';
import { badRequest, notFound } from '../../core/errors.ts';
import { assertOwnerOrModerator } from '../../core/policy.ts';
import { listItems } from '../posts/posts.repo.ts';
import { parseId } from '../../core/ids.ts';
import { poolJson } from './pools.service.ts';
import type { NewPool, PoolPatch } from './pools.schemas.ts';
import { toId } from '../../core/ids.ts';
import { recordAudit } from '../moderation/audit.repo.ts';
import * as repo from './pools.repo.ts';
import type { PoolRow } from './pools.repo.ts';

export const MAX_POOL_POSTS = 1000;

/** A pool the viewer may see: public, or private and theirs. Anything else is not found. */
async function visiblePool(deps: Deps, viewer: Viewer | null, rawId: string) {
  const row = await repo.findPool(deps.db, parseId(rawId, 'Pool'));
  if (!row || (row.is_public !== 1 && row.creator_id !== viewer?.id)) return notFound('Pool', rawId);
  return row;
}

async function editablePool(deps: Deps, viewer: Viewer, rawId: string) {
  const row = await visiblePool(deps, viewer, rawId);
  assertOwnerOrModerator(viewer, row.creator_id, 'pool');
  return row;
}

/** A moderator's change to someone else's pool goes in the audit log, in the change's transaction. */
async function auditOthers(trx: Tx, deps: Deps, viewer: Viewer, row: PoolRow, edit: 'pool.edit' | 'pool.delete', details: Record<string, unknown>) {
  if (row.creator_id === viewer.id) return;
  await recordAudit(trx, viewer, deps.clock.now(), { action: edit, target: `pool:${row.id}`, details: { name: row.name, creator: row.username, ...details } });
}

/** Rewrites a pool's order and count in one go (positions 1..n). */
export async function writeOrder(trx: Tx, poolId: number, postIds: number[], now: number): Promise<void> {
  await repo.deletePoolPosts(trx, poolId);
  await repo.insertPoolPosts(trx, poolId, postIds, now);
  await repo.setPoolCount(trx, poolId, postIds.length, now);
}

/**
 * Locks the pool's row for the rest of the transaction before its order is read: concurrent
 * changes to one pool then take turns instead of rewriting each other's order (PostgreSQL;
 * SQLite runs one writer at a time). A pool deleted meanwhile is not found.
 */
async function lockPool(trx: Tx, poolId: number, rawId: string): Promise<void> {
  if (!(await repo.lockPool(trx, poolId))) notFound('Pool', rawId);
}

function postIdList(raw: string[], field: string): number[] {
  const ids = raw.map((r) => toId(r) ?? NaN);
  if (ids.some(Number.isNaN)) badRequest(`field '${field}' holds an id that is not a post id`);
  if (new Set(ids).size !== ids.length) badRequest(`field '${field}' lists a post twice`);
  return ids;
}

export async function getPool(deps: Deps, viewer: Viewer | null, rawId: string) {
  const row = await visiblePool(deps, viewer, rawId);
  const posts = await listItems(deps.db, await repo.poolPostIds(deps.db, row.id), deps.config);
  return { pool: poolJson(row), posts };
}

export async function createPool(deps: Deps, viewer: Viewer, body: NewPool) {
  const postIds = postIdList(body.postIds ?? [], 'postIds');
  const found = await repo.existingPosts(deps.db, postIds);
  const missing = postIds.filter((id) => !found.has(id));
  if (missing.length) notFound('Post', String(missing[0]));
  const now = deps.clock.now();
  const id = await deps.db.transaction().execute(async (trx) => {
    const id = await repo.insertPool(trx, {
      creatorId: viewer.id,
      name: body.name.trim(),
      description: body.description ?? '',
      isPublic: body.isPublic !== false,
      now,
    });
    await writeOrder(trx, id, postIds, now);
    return id;
  });
  return { pool: poolJson((await repo.findPool(deps.db, id))!) };
}

export async function updatePool(deps: Deps, viewer: Viewer, rawId: string, patch: PoolPatch) {
  const row = await editablePool(deps, viewer, rawId);
  await deps.db.transaction().execute(async (trx) => {
    await repo.updatePoolRow(trx, row.id, { name: patch.name?.trim(), description: patch.description, isPublic: patch.isPublic }, deps.clock.now());
    await auditOthers(trx, deps, viewer, row, 'pool.edit', { changes: { ...patch } });
  });
  return { pool: poolJson((await repo.findPool(deps.db, row.id))!) };
}

export async function deletePool(deps: Deps, viewer: Viewer, rawId: string) {
  const row = await editablePool(deps, viewer, rawId);
  await deps.db.transaction().execute(async (trx) => {
    await repo.deletePool(trx, row.id);
    await auditOthers(trx, deps, viewer, row, 'pool.delete', {});
  });
  return { message: `Pool ${rawId} deleted` };
}

/** Adds a post at a 1-based position (default: the end). Adding a post already there changes nothing. */
export async function addPost(deps: Deps, viewer: Viewer, rawId: string, rawPostId: string, position?: number) {
  const row = await editablePool(deps, viewer, rawId);
  const [postId] = postIdList([rawPostId], 'postId');
  if (!(await repo.existingPosts(deps.db, [postId])).has(postId)) notFound('Post', rawPostId);
  await deps.db.transaction().execute(async (trx) => {
    await lockPool(trx, row.id, rawId);
    const order = await repo.poolPostIds(trx, row.id);
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
    const order = await repo.poolPostIds(trx, row.id);
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
    const current = await repo.poolPostIds(trx, row.id);
    const same = wanted.length === current.length && wanted.every((id) => current.includes(id));
    if (!same) badRequest("field 'postIds' must list exactly the pool's posts, each once", [{ field: 'postIds', message: 'not the same posts as the pool' }]);
    await writeOrder(trx, row.id, wanted, deps.clock.now());
    await auditOthers(trx, deps, viewer, row, 'pool.edit', { reordered: wanted.map(String) });
  });
  return getPool(deps, viewer, rawId);
}
