import type { Deps, Viewer } from '../../core/deps.ts';
import { badRequest } from '../../core/errors.ts';
import { parseId } from '../../core/ids.ts';
import * as reactions from '../reactions/reactions.service.ts';
import { danbooruTime } from './danbooru-time.ts';
import { findLikeTime } from './danbooru-others.repo.ts';

/** Favorites have no id of their own here: the post's id stands in, so a client can name it in DELETE /favorites/<id>.json. */
export async function favorite(deps: Deps, viewer: Viewer, rawPostId: string | number | undefined) {
  const raw = String(rawPostId ?? '');
  if (raw === '') badRequest('post_id is required');
  await reactions.favorite(deps, viewer, raw, true);
  const postId = parseId(raw, 'Post');
  return { id: postId, post_id: postId, user_id: viewer.id };
}

/** A vote of +1 is our like; we have no downvotes, so any other score is refused (422) rather than taken as something else. */
export async function vote(deps: Deps, viewer: Viewer, rawPostId: string, rawScore: string | undefined) {
  if (rawScore !== undefined && rawScore !== '1') badRequest('score must be 1: this board has likes, not downvotes');
  await reactions.like(deps, viewer, rawPostId, true);
  const postId = parseId(rawPostId, 'Post');
  const likedAt = await findLikeTime(deps.db, viewer.id, postId);
  return { id: postId, post_id: postId, user_id: viewer.id, score: 1, created_at: danbooruTime(likedAt ?? deps.clock.now()) };
}
