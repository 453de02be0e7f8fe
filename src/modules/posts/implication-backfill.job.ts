import type { Tx } from '../../db/engine.ts';
import type { JobKind } from '../../jobs/job-kind.ts';
import { applyingImplications } from '../../db/locks.ts';
import { addTagsToPosts } from './post-tags.ts';
import { type LinkCursor, linkCountsAmong, tagLinksAfter } from './post-tags.repo.ts';
import { findTagById, findTagPostCount } from './post-jobs.repo.ts';
import { impliedTags } from '../tags/tag-implications.repo.ts';
import { type BackfillParams, IMPLICATION_BACKFILL } from '../tags/tag-jobs.ts';

/**
 * Posts looked at per step. A step holds SQLite's one write lock and its process's one connection
 * (that process's requests wait for it), so it stays a few tens of milliseconds long at a million posts.
 */
export const BACKFILL_BATCH = 200;

/** The posts of a batch that lack one of `wanted` (tag ids). */
async function lacking(trx: Tx, posts: number[], wanted: number[]): Promise<number[]> {
  const have = await linkCountsAmong(trx, posts, wanted);
  const complete = new Set(have.filter((r) => Number(r.n) === wanted.length).map((r) => r.post_id));
  return posts.filter((id) => !complete.has(id));
}

/**
 * Gives the posts tagged `from` the tag `to` and what `to` implies, after `from` came to imply
 * `to`. Only `from`'s posts are read: a post with a tag that implies `from` has `from` already, or
 * gets it from a write (or another backfill) that comes after this implication and so adds `to`
 * too. The posts are walked in the order of post_tags' tag index (no scan of other tags' posts),
 * and only those lacking a consequent are written, a batch at once (addTagsToPosts): links,
 * counts, tag strings, the change log the in-memory search sets catch up from.
 */
export const implicationBackfill: JobKind<BackfillParams, LinkCursor> = {
  name: IMPLICATION_BACKFILL.name,

  async total(db, { fromId }) {
    const row = await findTagPostCount(db, fromId);
    return Number(row?.post_count ?? 0);
  },

  async step({ trx, deps, params, cursor }) {
    await applyingImplications(trx); // first, as db/locks.ts says
    const { posts, next } = await tagLinksAfter(trx, params.fromId, cursor, BACKFILL_BATCH);
    if (posts.length === 0) return { cursor: cursor ?? { at: 0, post: 0 }, done: 0, finished: true };
    const to = await findTagById(trx, params.toId);
    if (!to) return { cursor: cursor ?? { at: 0, post: 0 }, done: 0, finished: true };
    const wanted = new Map([to, ...(await impliedTags(trx, [to.id]))].map((t) => [t.name, t.id]));
    await addTagsToPosts(trx, deps.db, await lacking(trx, posts, [...wanted.values()]), wanted, deps.clock.now());
    return { cursor: next!, done: posts.length, finished: posts.length < BACKFILL_BATCH };
  },
};
