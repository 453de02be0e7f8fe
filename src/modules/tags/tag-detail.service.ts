import type { Actor, Deps } from '../../core/deps.ts';
import type { Job } from '../../jobs/jobs.schemas.ts';
import { badRequest, notFound } from '../../core/errors.ts';
import { assertModerator } from '../../core/policy.ts';
import { iso } from '../../core/schemas.ts';
import { bumpVersion } from '../../db/counters.ts';
import { createJob, runStepsNow } from '../../jobs/jobs.service.ts';
import { wakeJobRunners } from '../../jobs/wake.ts';
import { TAG_RENAME } from './tag-jobs.ts';
import { aliasesOf, insertAlias, tagOfName } from './tag-aliases.repo.ts';
import type { TagCategory } from '../../core/tag-categories.ts';
import type { TagAliasListQuery, TagPatch } from './tag-detail.schemas.ts';
import { recordTagChange, tagHistoryPage, type TagFields } from './tag-history.repo.ts';
import { tagImplications } from './tag-implications.repo.ts';
import { renameTag, updateTagFields } from './tags.repo.ts';
import { newTagName, normalizeTagName } from './tag-name-rules.ts';
import { pagination } from '../../core/lists.ts';

/** A name as asked for in a path: the tag rules' form of it (an unusable name is no tag: 404). */
function asked(raw: string): string {
  const r = normalizeTagName(raw);
  return r.ok ? r.name : notFound('Tag', raw);
}

/** GET /api/tags/<name>: the tag, or the tag an alias name stands for. */
export async function getTag(deps: Deps, rawName: string) {
  const tag = (await tagOfName(deps.db, asked(rawName))) ?? notFound('Tag', rawName);
  const [aliases, implications] = await Promise.all([aliasesOf(deps.db, tag.id), tagImplications(deps.db, tag.id)]);
  return {
    name: tag.name,
    category: tag.category as TagCategory,
    postsCount: tag.post_count,
    description: tag.description,
    aliases,
    ...implications,
    createdAt: iso(tag.created_at),
  };
}

/**
 * PATCH /api/tags/<name> (moderators): category, description, name. A rename keeps the tag (its
 * id, posts and aliases) and leaves the old name as an alias of it. The posts' tag strings are
 * rewritten in the same transaction when the tag has up to `aliasRetagNow` posts, else by a job
 * (posts.retag.ts) made in it, which the answer names.
 */
export async function patchTag(deps: Deps, by: Actor, rawName: string, patch: TagPatch) {
  assertModerator(by, 'change a tag');
  let rename: string | undefined;
  if (patch.name !== undefined) {
    const r = newTagName(patch.name);
    rename = r.ok ? r.name : badRequest(`field 'name': ${r.reason}`, [{ field: 'name', message: r.reason }]);
  }
  const { name, job } = await deps.db.transaction().execute(async (trx) => {
    let job: Job | null = null;
    const tag = (await tagOfName(trx, asked(rawName))) ?? notFound('Tag', rawName);
    const now = deps.clock.now();
    const before: TagFields = {};
    const after: TagFields = {};
    if (rename !== undefined && rename !== tag.name) {
      const taken = await tagOfName(trx, rename);
      if (taken) {
        const message = taken.name === rename ? `'${rename}' is already a tag` : `'${rename}' is already an alias of '${taken.name}'`;
        badRequest(`field 'name': ${message}`, [{ field: 'name', message }]);
      }
      await renameTag(trx, tag.id, rename);
      await insertAlias(trx, { from: tag.name, tagId: tag.id, creatorId: by.id, createdAt: now });
      await recordTagChange(trx, by, now, { kind: 'alias', action: 'create', tagId: tag.id, after: { from: tag.name, to: rename } });
      const params = { tagId: tag.id, from: tag.name };
      if (tag.post_count <= deps.config.aliasRetagNow) await runStepsNow(trx, deps, TAG_RENAME, params);
      else job = await createJob(deps, TAG_RENAME, params, by.id, trx);
      [before.name, after.name] = [tag.name, rename];
    }
    if (patch.category !== undefined && patch.category !== tag.category) [before.category, after.category] = [tag.category as TagCategory, patch.category];
    if (patch.description !== undefined && patch.description !== tag.description)
      [before.description, after.description] = [tag.description, patch.description];
    if (after.category !== undefined || after.description !== undefined) await updateTagFields(trx, tag.id, after);
    // A patch that changes nothing leaves no entry.
    if (Object.keys(after).length > 0) await recordTagChange(trx, by, now, { kind: 'tag', action: 'update', tagId: tag.id, before, after });
    await bumpVersion(trx);
    return { name: rename ?? tag.name, job };
  });
  if (job) wakeJobRunners(deps.db);
  return { ...(await getTag(deps, name)), ...(job ? { job: { id: job.id } } : {}) };
}

/** GET /api/tags/<name>/history: the changes to a tag, its aliases and its implications, newest first. */
export async function getTagHistory(deps: Deps, rawName: string, q: TagAliasListQuery) {
  const tag = (await tagOfName(deps.db, asked(rawName))) ?? notFound('Tag', rawName);
  const page = q.page ?? 1;
  const limit = q.limit ?? 50;
  const { rows, total } = await tagHistoryPage(deps.db, tag.id, limit, (page - 1) * limit);
  return {
    name: tag.name,
    history: rows.map((r) => ({
      id: String(r.id),
      kind: r.kind,
      action: r.action,
      user: r.username === null ? null : { username: r.username },
      createdAt: iso(r.created_at),
      before: r.before === null ? null : (JSON.parse(r.before) as TagFields),
      after: r.after === null ? null : (JSON.parse(r.after) as TagFields),
    })),
    pagination: pagination(total, page, limit),
  };
}
