import type { Deps } from '../../core/deps.ts';
import { toId } from '../../core/ids.ts';
import { danbooruPage } from './danbooru-paging.ts';
import { danbooruTime } from './danbooru-time.ts';
import type { CommentsQuery } from './danbooru-others.schemas.ts';
import { findComments } from './danbooru-others.repo.ts';

/**
 * Comments in Danbooru's shape: a post's comments oldest first (as a thread reads), or without a
 * post the newest. Only comments of existing posts are listed (the join): every post we keep is
 * visible to every viewer, so that is the whole of "posts the viewer may see" today.
 */
export async function listComments(deps: Deps, q: CommentsQuery) {
  const { limit, offset } = danbooruPage(q);
  const rawPost = q['search[post_id]']?.trim();
  let postId: number | null = null;
  if (rawPost) {
    postId = toId(rawPost);
    if (postId === null) return [];
  }
  const rows = await findComments(deps.db, postId, limit, offset);
  return rows.map((c) => ({
    id: c.id,
    post_id: c.post_id,
    creator_id: c.user_id,
    creator_name: c.username,
    body: c.content,
    score: 0,
    created_at: danbooruTime(c.created_at),
    // Comments are not edited here: the last change is their creation.
    updated_at: danbooruTime(c.created_at),
    updater_id: c.user_id,
    do_not_bump_post: false,
    is_deleted: false,
    is_sticky: false,
  }));
}
