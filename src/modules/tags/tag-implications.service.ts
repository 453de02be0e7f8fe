import type { Actor, Deps } from '../../core/deps.ts';
import { badRequest, conflict, notFound } from '../../core/errors.ts';
import { assertModerator } from '../../core/policy.ts';
import { iso } from '../../core/schemas.ts';
import { bumpVersion } from '../../db/counters.ts';
import { changingImplications } from '../../db/locks.ts';
import type { Tx } from '../../db/engine.ts';
import { createJob } from '../../jobs/jobs.service.ts';
import { wakeJobRunners } from '../../jobs/wake.ts';
import { IMPLICATION_BACKFILL } from './tag-jobs.ts';
import { tagOfName } from './tag-aliases.repo.ts';
import {
  deleteImplicationPair,
  findImplication,
  implicationPage,
  implicationPath,
  insertImplication,
  postsToBackfill,
  type TagRef,
} from './tag-implications.repo.ts';
import { insertTagWithCategory } from './tags.repo.ts';
import type { NewTagImplication, TagImplicationListQuery } from './tag-implications.schemas.ts';
import { recordTagChange } from './tag-history.repo.ts';
import { newTagName, normalizeTagName } from './tag-name-rules.ts';
import { pagination, userRef } from '../../core/lists.ts';

type Side = 'from' | 'to';

const refuse = (field: Side, message: string): never => badRequest(`field '${field}': ${message}`, [{ field, message }]);

function sideName(raw: string, field: Side): string {
  const r = normalizeTagName(raw);
  return r.ok ? r.name : refuse(field, r.reason);
}

/** The tag a side names (an alias name gives its target), created when missing, in `category`. */
async function sideTag(trx: Tx, name: string, field: Side, category: string, now: number) {
  const tag = await tagOfName(trx, name);
  if (tag) return tag;
  const r = newTagName(name);
  if (!r.ok) refuse(field, r.reason);
  return insertTagWithCategory(trx, name, category, now);
}

/** Refuses a pair that exists (409) or would close a cycle (400 naming it, e.g. "animal -> cat -> animal"). */
async function assertNew(trx: Tx, from: TagRef, to: TagRef): Promise<void> {
  if (from.id === to.id) refuse('to', `${from.name} -> ${to.name}: a tag cannot imply itself`);
  const exists = await findImplication(trx, from.id, to.id);
  if (exists) conflict(`'${from.name}' already implies '${to.name}'`);
  const back = await implicationPath(trx, to, from.id);
  if (back) refuse('to', `${[from.name, ...back].join(' -> ')}: '${to.name}' implies '${from.name}' already, so this would make a cycle`);
}

/**
 * POST /api/tag-implications (moderators): from now on every write that gives a post `from` gives
 * it `to` too, and what `to` implies. When posts tagged `from` lack `to`, a background job
 * (implication-backfill.job.ts) gives it to them; it is made in the same transaction, so the
 * implication never exists without it.
 */
export async function createImplication(deps: Deps, by: Actor, input: NewTagImplication) {
  assertModerator(by, 'create tag implications');
  const fromName = sideName(input.from, 'from');
  const toName = sideName(input.to, 'to');
  const createdAt = deps.clock.now();
  const made = await deps.db.transaction().execute(async (trx) => {
    // Alone (db/locks.ts): the writes that read the implications before this one have made their
    // posts, which the backfill check below sees, and later ones see this implication. Two made
    // at once (a -> b, b -> a) check for cycles one after the other, each seeing the other's pair.
    await changingImplications(trx);
    await bumpVersion(trx);
    const from = await sideTag(trx, fromName, 'from', 'general', createdAt);
    const to = await sideTag(trx, toName, 'to', from.category, createdAt);
    await assertNew(trx, from, to);
    await insertImplication(trx, { fromId: from.id, toId: to.id, creatorId: by.id, createdAt });
    await recordTagChange(trx, by, createdAt, {
      kind: 'implication',
      action: 'create',
      tagId: from.id,
      otherId: to.id,
      after: { from: from.name, to: to.name },
    });
    const job = (await postsToBackfill(trx, from.id, to.id)) ? await createJob(deps, IMPLICATION_BACKFILL, { fromId: from.id, toId: to.id }, by.id, trx) : null;
    return { from: from.name, to: to.name, job };
  });
  if (made.job) wakeJobRunners(deps.db);
  const implication = { from: made.from, to: made.to, createdAt: iso(createdAt), creator: userRef(by.username) };
  return made.job ? { ...implication, job: made.job } : implication;
}

/** GET /api/tag-implications: newest first, optionally those with one tag on either side. */
export async function listImplications(deps: Deps, q: TagImplicationListQuery) {
  const page = q.page ?? 1;
  const limit = q.limit ?? 50;
  const tagId = q.tag === undefined ? undefined : (await sideOf(deps, q.tag)).id;
  const fromId = q.from === undefined ? undefined : (await sideOf(deps, q.from)).id;
  const { rows, total: n } = await implicationPage(deps.db, { tagId, fromId }, limit, (page - 1) * limit);
  return {
    implications: rows.map((r) => ({ from: r.from, to: r.to, createdAt: iso(r.created_at), creator: userRef(r.username) })),
    pagination: pagination(n, page, limit),
  };
}

/** The tag a name or alias name gives; id -1 (no tag) when there is none, so a filter by it finds nothing. */
async function sideOf(deps: Deps, raw: string): Promise<{ id: number; name: string }> {
  const r = normalizeTagName(raw);
  const tag = r.ok ? await tagOfName(deps.db, r.name) : undefined;
  return tag ?? { id: -1, name: raw };
}

/** DELETE /api/tag-implications/<from>/<to> (moderators): no post loses a tag (Danbooru learnt this the hard way). */
export async function deleteImplication(deps: Deps, by: Actor, rawFrom: string, rawTo: string) {
  assertModerator(by, 'delete tag implications');
  const [from, to] = [await sideOf(deps, rawFrom), await sideOf(deps, rawTo)];
  await deps.db.transaction().execute(async (trx) => {
    if ((await deleteImplicationPair(trx, from.id, to.id)) === 0) notFound('Tag implication', `${rawFrom} -> ${rawTo}`);
    const before = { from: from.name, to: to.name };
    await recordTagChange(trx, by, deps.clock.now(), { kind: 'implication', action: 'delete', tagId: from.id, otherId: to.id, before });
  });
  return { message: `Implication '${rawFrom}' -> '${rawTo}' deleted` };
}
