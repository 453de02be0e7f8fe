import type { Transaction } from 'kysely';
import type { Actor, Deps } from '../../core/deps.ts';
import { badRequest, conflict, notFound } from '../../core/errors.ts';
import { assertModerator } from '../../core/policy.ts';
import { iso } from '../../core/schemas.ts';
import { bumpVersion } from '../../db/counters.ts';
import { changingImplications } from '../../db/locks.ts';
import type { DB } from '../../db/types.ts';
import { createJob } from '../../jobs/jobs.service.ts';
import { wakeJobRunners } from '../../jobs/wake.ts';
import { IMPLICATION_BACKFILL } from './tag-jobs.ts';
import { tagOfName } from './tag-aliases.repo.ts';
import { implicationPath, type TagRef } from './tag-implications.repo.ts';
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
async function sideTag(trx: Transaction<DB>, name: string, field: Side, category: string, now: number) {
  const tag = await tagOfName(trx, name);
  if (tag) return tag;
  const r = newTagName(name);
  if (!r.ok) refuse(field, r.reason);
  return trx.insertInto('tags').values({ name, post_count: 0, created_at: now, category }).returning(['id', 'name', 'category']).executeTakeFirstOrThrow();
}

/** Refuses a pair that exists (409) or would close a cycle (400 naming it, e.g. "animal -> cat -> animal"). */
async function assertNew(trx: Transaction<DB>, from: TagRef, to: TagRef): Promise<void> {
  if (from.id === to.id) refuse('to', `${from.name} -> ${to.name}: a tag cannot imply itself`);
  const exists = await trx.selectFrom('tag_implications').select('from_id').where('from_id', '=', from.id).where('to_id', '=', to.id).executeTakeFirst();
  if (exists) conflict(`'${from.name}' already implies '${to.name}'`);
  const back = await implicationPath(trx, to, from.id);
  if (back) refuse('to', `${[from.name, ...back].join(' -> ')}: '${to.name}' implies '${from.name}' already, so this would make a cycle`);
}

/** Whether some post tagged `from` lacks `to`: then the implication needs a backfill. */
async function postsToBackfill(trx: Transaction<DB>, fromId: number, toId: number): Promise<boolean> {
  const row = await trx
    .selectFrom('post_tags as a')
    .select('a.post_id')
    .where('a.tag_id', '=', fromId)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('post_tags as b').select('b.post_id').whereRef('b.post_id', '=', 'a.post_id').where('b.tag_id', '=', toId))),
    )
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
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
    await trx.insertInto('tag_implications').values({ from_id: from.id, to_id: to.id, creator_id: by.id, created_at: createdAt }).execute();
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
  const base = deps.db
    .selectFrom('tag_implications')
    .$if(tagId !== undefined, (qb) => qb.where((eb) => eb.or([eb('tag_implications.from_id', '=', tagId!), eb('tag_implications.to_id', '=', tagId!)])))
    .$if(fromId !== undefined, (qb) => qb.where('tag_implications.from_id', '=', fromId!));
  const [rows, total] = await Promise.all([
    base
      .innerJoin('tags as f', 'f.id', 'tag_implications.from_id')
      .innerJoin('tags as t', 't.id', 'tag_implications.to_id')
      .leftJoin('users', 'users.id', 'tag_implications.creator_id')
      .select(['f.name as from', 't.name as to', 'tag_implications.created_at', 'users.username'])
      .orderBy('tag_implications.created_at', 'desc')
      .orderBy('f.name')
      .orderBy('t.name')
      .limit(limit)
      .offset((page - 1) * limit)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  const n = Number(total.n);
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
    const gone = await trx.deleteFrom('tag_implications').where('from_id', '=', from.id).where('to_id', '=', to.id).executeTakeFirst();
    if (Number(gone.numDeletedRows) === 0) notFound('Tag implication', `${rawFrom} -> ${rawTo}`);
    const before = { from: from.name, to: to.name };
    await recordTagChange(trx, by, deps.clock.now(), { kind: 'implication', action: 'delete', tagId: from.id, otherId: to.id, before });
  });
  return { message: `Implication '${rawFrom}' -> '${rawTo}' deleted` };
}
