import type { Deps, Viewer } from '../../core/deps.ts';
import { AppError } from '../../core/errors.ts';
import { bumpVersion } from '../../db/counters.ts';
import { changePost } from '../posts/posts.edit.ts';
import { MAX_POOL_POSTS, writeOrder } from '../pools/pools.write.ts';
import { createAlias } from '../tags/tag-aliases.service.ts';
import { patchTag } from '../tags/tag-detail.service.ts';
import { createImplication } from '../tags/tag-implications.service.ts';
import { normalizeTagName } from '../tags/tag-name-rules.ts';
import type { BoardData } from './import-item.ts';
import * as repo from './imports.repo.ts';
import type { PendingParent } from './import-writer.ts';

export interface BoardOutcome {
  tags: number;
  aliases: number;
  implications: number;
  parents: number;
  pools: number;
  /** What could not be applied, each with its reason. */
  problems: { label: string; reason: string }[];
}

const MAX_POOL_NAME = 128;

/**
 * What an import applies once its posts are in: tags' categories and descriptions, aliases,
 * implications, parents that came after their children, and pools in order. Each part is written
 * through the board's own services (history, jobs, locks) and is idempotent, so a run killed here
 * does it all again next time, and a second run changes nothing. A dry run counts without writing.
 */
export async function applyBoard(deps: Deps, user: Viewer, board: BoardData, parents: PendingParent[], dryRun: boolean): Promise<BoardOutcome> {
  const out: BoardOutcome = { tags: 0, aliases: 0, implications: 0, parents: 0, pools: 0, problems: [] };
  const attempt = async (label: string, work: () => Promise<boolean>) => {
    try {
      return await work();
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      out.problems.push({ label, reason: err.message });
      return false;
    }
  };
  for (const t of board.tags) {
    if (await attempt(`tag ${t.name}`, () => applyTag(deps, user, t, dryRun))) out.tags++;
  }
  for (const a of board.aliases) {
    if (await attempt(`alias ${a.from} -> ${a.to}`, () => applyAlias(deps, user, a, dryRun))) out.aliases++;
  }
  for (const i of board.implications) {
    if (await attempt(`implication ${i.from} -> ${i.to}`, () => applyImplication(deps, user, i, dryRun))) out.implications++;
  }
  for (const p of parents) {
    if (await attempt(`post ${p.postId}'s parent`, () => applyParent(deps, user, p, dryRun))) out.parents++;
  }
  for (const pool of board.pools) {
    if (await attempt(`pool ${pool.name}`, () => applyPool(deps, user, pool, dryRun, out.problems))) out.pools++;
  }
  return out;
}

const nameOf = (raw: string) => {
  const r = normalizeTagName(raw);
  return r.ok ? r.name : null;
};

/** A category the board has as general, or a description it lacks; a tag with neither here is made when the source says more than its name. */
async function applyTag(deps: Deps, user: Viewer, t: BoardData['tags'][number], dryRun: boolean): Promise<boolean> {
  const name = nameOf(t.name);
  if (name === null) return false;
  const here = await repo.findTagInfo(deps.db, name);
  const category = t.category && t.category !== 'general' && (!here || here.category === 'general') ? t.category : undefined;
  const description = t.description?.trim() && !here?.description ? t.description.trim() : undefined;
  if (category === undefined && description === undefined) return false;
  if (dryRun) return true;
  if (!here) {
    await deps.db.transaction().execute(async (trx) => {
      await repo.insertTagIfAbsent(trx, { name, createdAt: deps.clock.now(), category: category ?? 'general', description: description ?? '' });
      await bumpVersion(trx);
    });
    return true;
  }
  await patchTag(deps, user, name, { category, description });
  return true;
}

type Relation = { from: string; to: string };

/** An alias or implication: written through its service unless the board has it (a dry run only counts). */
async function applyRelation(r: Relation, dryRun: boolean, has: (from: string, to: string) => Promise<boolean>, create: (r: Relation) => Promise<unknown>) {
  const from = nameOf(r.from);
  const to = nameOf(r.to);
  if (from === null || to === null || from === to || (await has(from, to))) return false;
  if (!dryRun) await create({ from, to });
  return true;
}

const applyAlias = (deps: Deps, user: Viewer, a: Relation, dryRun: boolean) =>
  applyRelation(
    a,
    dryRun,
    async (from, to) => (await repo.aliasTarget(deps.db, from)) === to,
    (r) => createAlias(deps, user, r),
  );

const applyImplication = (deps: Deps, user: Viewer, i: Relation, dryRun: boolean) =>
  applyRelation(
    i,
    dryRun,
    (from, to) => repo.hasImplication(deps.db, from, to),
    (r) => createImplication(deps, user, r),
  );

async function applyParent(deps: Deps, user: Viewer, p: PendingParent, dryRun: boolean): Promise<boolean> {
  const parentId = await repo.recordOf(deps.db, 'post', p.origin, p.parentOriginId);
  if (parentId === null) return false; // the parent was not imported (outside the query, or failed)
  if (dryRun) return true;
  await deps.db.transaction().execute((trx) => changePost(trx, deps, user, p.postId, String(p.postId), { parentId, audit: { parentId: String(parentId) } }));
  return true;
}

/** The pool made by an earlier run (by its origin id) or a new one, given the source's order of the posts that are here. */
async function applyPool(deps: Deps, user: Viewer, pool: BoardData['pools'][number], dryRun: boolean, problems: BoardOutcome['problems']): Promise<boolean> {
  const mapped = await repo.recordsOf(deps.db, 'post', pool.origin, pool.postOriginIds);
  let ids = [...new Set(pool.postOriginIds.flatMap((o) => (mapped.has(o) ? [mapped.get(o)!] : [])))];
  if (ids.length === 0) return false;
  if (ids.length > MAX_POOL_POSTS) {
    problems.push({
      label: `pool ${pool.name}`,
      reason: `holds ${ids.length} posts; a pool here holds at most ${MAX_POOL_POSTS}: the first ${MAX_POOL_POSTS} were kept`,
    });
    ids = ids.slice(0, MAX_POOL_POSTS);
  }
  const existing = await repo.recordOf(deps.db, 'pool', pool.origin, pool.key);
  if (existing !== null) {
    if (!(await repo.poolExists(deps.db, existing))) return false; // deleted here since: not brought back
    const order = await repo.poolPostIds(deps.db, existing);
    if (order.length === ids.length && order.every((r, i) => r.post_id === ids[i])) return false;
    if (dryRun) return true;
    await deps.db.transaction().execute((trx) => writeOrder(trx, existing, ids, deps.clock.now()));
    return true;
  }
  if (dryRun) return true;
  const name = [...(pool.name.trim() || `pool ${pool.key}`)].slice(0, MAX_POOL_NAME).join('');
  await deps.db.transaction().execute(async (trx) => {
    const now = deps.clock.now();
    const madeId = await repo.insertPool(trx, { creatorId: user.id, name, description: pool.description ?? '', now });
    await writeOrder(trx, madeId, ids, now);
    await repo.addRecord(trx, { kind: 'pool', origin: pool.origin, originId: pool.key, localId: madeId }, now);
  });
  return true;
}
