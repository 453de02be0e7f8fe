import type { Actor, Deps } from '../../core/deps.ts';
import { badRequest, conflict, notFound } from '../../core/errors.ts';
import { assertModerator } from '../../core/policy.ts';
import { iso } from '../../core/schemas.ts';
import { bumpVersion } from '../../db/counters.ts';
import { applyingImplications } from '../../db/locks.ts';
import type { Tx } from '../../db/engine.ts';
import type { Job } from '../../jobs/jobs.schemas.ts';
import { createJob, runStepsNow } from '../../jobs/jobs.service.ts';
import { wakeJobRunners } from '../../jobs/wake.ts';
import { ALIAS_RETAG } from './tag-jobs.ts';
import { aliasTargets } from '../../db/queries/tag-names.ts';
import { aliasPage, deleteAliasNamed, firstAliasOfTagNamed, insertAlias } from './tag-aliases.repo.ts';
import { findTagId, findTagRef, findTagToAlias, insertTag } from './tags.repo.ts';
import { anyImplicationOf } from './tag-implications.repo.ts';
import type { NewTagAlias, TagAliasListQuery } from './tag-detail.schemas.ts';
import { recordTagChange } from './tag-history.repo.ts';
import { newTagName, normalizeTagName } from './tag-name-rules.ts';
import { pagination, userRef } from '../../core/lists.ts';

function aliasName(raw: string, field: 'from' | 'to'): string {
  const r = normalizeTagName(raw);
  return r.ok ? r.name : badRequest(`field '${field}': ${r.reason}`, [{ field, message: r.reason }]);
}

const chain = (field: 'from' | 'to', names: string[], why: string): never => {
  const message = `${names.join(' -> ')}: ${why}`;
  return badRequest(`field '${field}': ${message}`, [{ field, message }]);
};

/**
 * Refuses an alias that would make a chain or a cycle (aliases never point at aliases, so one
 * lookup always lands on a tag), naming the chain.
 */
async function assertNoChain(trx: Tx, from: string, to: string): Promise<void> {
  if (from === to) chain('to', [from, to], 'an alias cannot stand for itself');
  const already = (await aliasTargets(trx, [from])).get(from);
  if (already) conflict(`'${from}' is already an alias of '${already.name}'`);
  const next = (await aliasTargets(trx, [to])).get(to);
  if (next?.name === from) chain('to', [from, to, from], `a cycle: '${to}' is already an alias of '${from}'; to turn it around, remove that alias first`);
  if (next) chain('to', [from, to, next.name], `'${to}' is an alias itself; alias '${from}' to '${next.name}' instead`);
  const into = await firstAliasOfTagNamed(trx, from);
  if (into) chain('from', [into.from_name, from, to], `'${from}' has aliases of its own; it cannot become one`);
}

/**
 * POST /api/tag-aliases (moderators). From then on every write and search reads `from` as `to`
 * (`to` is created when missing, in `from`'s category). The posts tagged `from` move to `to`:
 * up to `aliasRetagNow` of them in the same transaction as the alias; more in a background job
 * (posts.retag.ts) made in that transaction, so there is never an alias whose posts will not
 * move. The answer names the job when there is one.
 */
export async function createAlias(deps: Deps, by: Actor, input: NewTagAlias) {
  assertModerator(by, 'create tag aliases');
  const from = aliasName(input.from, 'from');
  const to = aliasName(input.to, 'to');
  const createdAt = deps.clock.now();
  const job = await deps.db.transaction().execute(async (trx) => {
    // The posts moved now get their tags' implications: first, as db/locks.ts says.
    await applyingImplications(trx);
    await assertNoChain(trx, from, to);
    const fromTag = await findTagToAlias(trx, from);
    // Writes would read `from` as `to` and never meet its implications again, or an implication would put `from` back on posts.
    const implied = fromTag && (await anyImplicationOf(trx, fromTag.id));
    if (implied)
      chain(
        'from',
        [implied.from, implied.to],
        `'${from}' is in this implication; delete it (and make it on '${to}' if it should stay) before aliasing '${from}'`,
      );
    let target = await findTagRef(trx, to);
    if (!target) {
      const r = newTagName(to);
      if (!r.ok) badRequest(`field 'to': ${r.reason}`, [{ field: 'to', message: r.reason }]);
      target = await insertTag(trx, to, fromTag?.category ?? 'general', createdAt);
    }
    await insertAlias(trx, { from, tagId: target.id, creatorId: by.id, createdAt });
    await recordTagChange(trx, by, createdAt, { kind: 'alias', action: 'create', tagId: target.id, otherId: fromTag?.id, after: { from, to } });
    let job: Job | null = null;
    if (fromTag && fromTag.post_count > 0) {
      const params = { from, fromId: fromTag.id, toId: target.id };
      // A few posts move now, so the answer already finds them under `to`; many, in the background.
      if (fromTag.post_count <= deps.config.aliasRetagNow) await runStepsNow(trx, deps, ALIAS_RETAG, params);
      else job = await createJob(deps, ALIAS_RETAG, params, by.id, trx);
    }
    // Last: its lock comes after the rows of the posts moved now (db/locks.ts).
    await bumpVersion(trx);
    return job;
  });
  if (job) wakeJobRunners(deps.db);
  return { from, to, createdAt: iso(createdAt), creator: userRef(by.username), ...(job ? { job: { id: job.id } } : {}) };
}

/** GET /api/tag-aliases: every alias, newest first. */
export async function listAliases(deps: Deps, q: TagAliasListQuery) {
  const page = q.page ?? 1;
  const limit = q.limit ?? 50;
  const { rows, total: n } = await aliasPage(deps.db, limit, (page - 1) * limit);
  return {
    aliases: rows.map((r) => ({ from: r.from_name, to: r.name, createdAt: iso(r.created_at), creator: userRef(r.username) })),
    pagination: pagination(n, page, limit),
  };
}

/** DELETE /api/tag-aliases/<from> (moderators): the name is its own again; no post is touched. */
export async function deleteAlias(deps: Deps, by: Actor, rawFrom: string) {
  assertModerator(by, 'delete tag aliases');
  const r = normalizeTagName(rawFrom);
  const from = r.ok ? r.name : notFound('Tag alias', rawFrom);
  await deps.db.transaction().execute(async (trx) => {
    const target = (await aliasTargets(trx, [from])).get(from) ?? notFound('Tag alias', rawFrom);
    if ((await deleteAliasNamed(trx, from)) === 0) notFound('Tag alias', rawFrom);
    const own = await findTagId(trx, from);
    await recordTagChange(trx, by, deps.clock.now(), {
      kind: 'alias',
      action: 'delete',
      tagId: target.id,
      otherId: own?.id,
      before: { from, to: target.name },
    });
    await bumpVersion(trx);
  });
  return { message: `Alias '${from}' deleted` };
}
