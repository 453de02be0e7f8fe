import type { Tx } from '../../db/engine.ts';
import { applyingImplications } from '../../db/locks.ts';
import type { JobKind } from '../../jobs/job-kind.ts';
import { replacePostTags, withImplied } from './post-tags.ts';
import { toTagString } from './tag-string.ts';
import { versioned } from './post-versions.ts';
import { type LinkCursor, tagLinksAfter, tagsOfPost } from './post-tags.repo.ts';
import { touchPost } from './posts.repo.ts';
import { countTagLinks, findAliasTarget, findTagName, findTagPostCount, postsOfTagAfter, setTagStringAt, tagStringsOf } from './post-jobs.repo.ts';
import { ALIAS_RETAG, type AliasRetagParams, TAG_RENAME, type TagRenameParams } from '../tags/tag-jobs.ts';

/** Posts a step of a job that retags posts goes over: well within a step's bounds (jobs/job-kind.ts). */
export const RETAG_BATCH = 200;

/**
 * Gives one post the tags `change` makes of its current ones (name -> id), through the edit path
 * (replacePostTags: links, counts, tag string, change log), in the caller's transaction. The post
 * is touched as an edit is (updated_at), which moves the data version; a post deleted meanwhile is
 * skipped (false). A change of its tags is a version of the post by `editorId` (null: the system).
 */
export async function retagPost(
  trx: Tx,
  postId: number,
  change: (tags: Map<string, number>) => Map<string, number>,
  now: number,
  editorId: number | null = null,
): Promise<boolean> {
  await applyingImplications(trx); // before the post's row: see db/locks.ts
  // Writing first locks the post's row, as an edit does, so the tags read below are current.
  const post = await touchPost(trx, postId, now);
  if (!post) return false;
  const tags = await tagsOfPost(trx, postId);
  // A retag or a bulk edit hands over tags whose implications it did not add.
  const wanted = await withImplied(trx, change(new Map(tags.map((t) => [t.name, t.id]))));
  await versioned(trx, [postId], editorId, now, () => replacePostTags(trx, postId, post.created_at, wanted));
  return true;
}

/**
 * Moves the posts of an alias's old tag to its target (a post that has both just loses the old
 * one), in batches by post id. Made with the alias (POST /api/tag-aliases); until it has run,
 * writes and searches already read the alias name as its target. An alias deleted meanwhile ends
 * it: the name is its own again, and the posts not yet moved keep it.
 */
export const aliasRetagJob: JobKind<AliasRetagParams, number> = {
  name: ALIAS_RETAG.name,
  total: async (db, params) => Number((await countTagLinks(db, params.fromId)).n),
  step: async ({ trx, deps, params, cursor }) => {
    const target = await findAliasTarget(trx, params.from, params.toId);
    if (!target) return { cursor: cursor ?? 0, done: 0, finished: true };
    const posts = await postsOfTagAfter(trx, params.fromId, cursor ?? 0, RETAG_BATCH);
    const moved = (tags: Map<string, number>) => new Map([...[...tags].filter(([, id]) => id !== params.fromId), [target.name, target.id]]);
    for (const { post_id } of posts) await retagPost(trx, post_id, moved, deps.clock.now());
    return { cursor: posts.at(-1)?.post_id ?? cursor ?? 0, done: posts.length, finished: posts.length < RETAG_BATCH };
  },
};

/**
 * Rewrites the tag strings of a renamed tag's posts (their links stay: the tag keeps its id), a
 * batch at a time in the tag's index order, to the name the tag has when the step runs (so a
 * second rename meanwhile leaves no string with the middle name). Until a post's string is
 * rewritten its page shows the old name, an alias of the tag, which searches read as the tag.
 */
export const tagRenameJob: JobKind<TagRenameParams, LinkCursor> = {
  name: TAG_RENAME.name,
  total: async (db, { tagId }) => Number((await findTagPostCount(db, tagId))?.post_count ?? 0),
  step: async ({ trx, deps, params, cursor }) => {
    const tag = await findTagName(trx, params.tagId);
    const { posts, next } = tag ? await tagLinksAfter(trx, params.tagId, cursor, RETAG_BATCH) : { posts: [], next: cursor };
    const now = deps.clock.now();
    if (posts.length > 0) {
      const rows = await tagStringsOf(trx, posts);
      for (const p of rows) {
        const names = p.tag_string.split(' ');
        if (!names.includes(params.from)) continue;
        await setTagStringAt(trx, p.id, toTagString(names.map((n) => (n === params.from ? tag!.name : n))), now);
      }
    }
    return { cursor: next ?? { at: 0, post: 0 }, done: posts.length, finished: posts.length < RETAG_BATCH };
  },
};
