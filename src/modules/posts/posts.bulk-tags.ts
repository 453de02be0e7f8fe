import type { Tx } from '../../db/engine.ts';
import type { Deps, Viewer } from '../../core/deps.ts';
import { badRequest } from '../../core/errors.ts';
import { assertModerator } from '../../core/policy.ts';
import { recordAudit } from '../moderation/audit.repo.ts';
import { allMatchingPosts } from '../../search/engine.ts';
import type { JobKind } from '../../jobs/job-kind.ts';
import { setJobTotal } from '../../jobs/jobs.repo.ts';
import type { Job } from '../../jobs/jobs.schemas.ts';
import { createJob } from '../../jobs/jobs.service.ts';
import { wakeJobRunners } from '../../jobs/wake.ts';
import { aliasTargets } from '../../db/queries/tag-names.ts';
import type { TagCategory } from '../../core/tag-categories.ts';
import { MAX_TAGS_PER_POST, parseTags, type TagInput } from '../tags/tag-name-rules.ts';
import { tagsForWrite } from './post-tags.ts';
import { RETAG_BATCH, retagPost } from './posts.retag.ts';
import type { BulkTags } from './posts.schemas.ts';
import { findTagIdsNamed } from './post-tags.repo.ts';
import { countJobPosts, deleteJobPostsThrough, findJobCreator, insertJobPosts, nextJobPosts } from './post-jobs.repo.ts';

export interface BulkTagsParams {
  add: string[];
  /** Categories the prefixes in `add` asked for, [name, category]. */
  categories: [string, TagCategory][];
  remove: string[];
}

function tagList(raw: string[], field: 'add' | 'remove'): TagInput {
  const { errors: problems, ...input } = parseTags(raw, MAX_TAGS_PER_POST);
  if (problems.length)
    badRequest(
      `field '${field}': ${problems.join('; ')}`,
      problems.map((message) => ({ field, message })),
    );
  return input;
}

/** A tag both added and removed (after aliases) is a 400 naming it. */
async function assertDisjoint(trx: Tx, add: string[], remove: string[]): Promise<void> {
  const targets = await aliasTargets(trx, [...add, ...remove]);
  const added = new Set(add.map((n) => targets.get(n)?.name ?? n));
  const both = remove.find((n) => added.has(targets.get(n)?.name ?? n));
  if (both !== undefined) badRequest(`field 'remove': tag '${both}' is also in 'add'`, [{ field: 'remove', message: `tag '${both}' is also in 'add'` }]);
}

/**
 * POST /api/posts/bulk-tags (moderators): adds and removes tags on every post `q` matches now.
 * The query is evaluated once, here, and the matching ids are kept in job_posts with the job, in
 * one transaction; the job (bulkTagsJob) then edits those posts and no others, whatever they
 * become meanwhile. A query that matches nothing gives a job that is done at once with total 0.
 */
export async function bulkTags(deps: Deps, viewer: Viewer, input: BulkTags): Promise<{ job: Job }> {
  assertModerator(viewer, 'edit the tags of posts in bulk');
  const add = tagList(input.add ?? [], 'add');
  const remove = tagList(input.remove ?? [], 'remove');
  if (add.tags.length === 0 && remove.tags.length === 0) {
    const message = 'give at least one tag to add or to remove';
    badRequest(`fields 'add' and 'remove': ${message}`, [
      { field: 'add', message },
      { field: 'remove', message },
    ]);
  }
  // Compiled before the transaction: the lookups read through the database, not the transaction.
  const matching = await allMatchingPosts(deps, input.q);
  const params: BulkTagsParams = { add: add.tags, categories: [...add.categories], remove: remove.tags };
  const job = await deps.db.transaction().execute(async (trx) => {
    await assertDisjoint(trx, add.tags, remove.tags);
    const made = await createJob(deps, bulkTagsJob, params, viewer.id, trx);
    const id = Number(made.id);
    await insertJobPosts(trx, id, matching);
    const listed = await countJobPosts(trx, id);
    await setJobTotal(trx, id, Number(listed.n));
    await recordAudit(trx, viewer, deps.clock.now(), {
      action: 'posts.bulk_tags',
      target: `job:${id}`,
      details: { q: input.q, add: params.add, remove: params.remove, posts: Number(listed.n) },
    });
    return { ...made, total: Number(listed.n) };
  });
  wakeJobRunners(deps.db);
  return { job };
}

/** The ids of the tags these names stand for now (aliases read as their targets). */
async function tagIdsNamed(trx: Tx, names: string[]): Promise<Set<number>> {
  if (names.length === 0) return new Set();
  const targets = await aliasTargets(trx, names);
  const plain = names.filter((n) => !targets.has(n));
  const rows = plain.length ? await findTagIdsNamed(trx, plain) : [];
  return new Set([...[...targets.values()].map((t) => t.id), ...rows.map((r) => r.id)]);
}

/**
 * Gives each post listed for the job (job_posts) its tags + add - remove, through the common
 * write path, a batch by post id at a time; a step deletes the rows it has done with its writes.
 * Names are resolved at each step, so an alias made meanwhile applies.
 */
export const bulkTagsJob: JobKind<BulkTagsParams, number> = {
  name: 'bulk-tags',
  // Its posts are listed in job_posts once the job exists: bulkTags sets the total then.
  total: async () => 0,
  step: async ({ trx, job, deps, params, cursor }) => {
    const posts = await nextJobPosts(trx, job, RETAG_BATCH);
    const last = posts.at(-1)?.post_id;
    if (last !== undefined) {
      const now = deps.clock.now();
      const added = await tagsForWrite(trx, { tags: params.add, categories: new Map(params.categories) }, now);
      const removed = await tagIdsNamed(trx, params.remove);
      const edit = (tags: Map<string, number>) => new Map([...[...tags].filter(([, id]) => !removed.has(id)), ...added]);
      // The moderator who asked for the edit is each post's editor.
      const by = await findJobCreator(trx, job);
      for (const { post_id } of posts) await retagPost(trx, post_id, edit, now, by?.created_by ?? null);
      await deleteJobPostsThrough(trx, job, last);
    }
    return { cursor: last ?? cursor ?? 0, done: posts.length, finished: posts.length < RETAG_BATCH };
  },
};
