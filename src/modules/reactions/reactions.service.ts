import type { Deps, Viewer } from '../../core/deps.ts';
import { notFound } from '../../core/errors.ts';
import { parseId } from '../../core/ids.ts';
import { postListJson } from '../posts/post-list-json.ts';
import { itemsByIds } from '../posts/posts.repo.ts';
import { findUserIdByName } from '../../db/queries/user-ids.ts';
import * as repo from './reactions.repo.ts';
import type { Kind } from './reactions.repo.ts';

/**
 * Adds or removes the viewer's like/favorite. Idempotent; the stored counter moves only when a row
 * really appeared or disappeared, in the same transaction, so it stays exact under concurrency.
 */
async function setReaction(deps: Deps, viewer: Viewer, rawId: string, kind: Kind, on: boolean): Promise<number> {
  const postId = parseId(rawId, 'Post');
  return deps.db.transaction().execute(async (trx) => {
    if (!(await repo.postExists(trx, postId))) notFound('Post', rawId);
    const changed = on ? await repo.insertReaction(trx, kind, viewer.id, postId, deps.clock.now()) : await repo.deleteReaction(trx, kind, viewer.id, postId);
    if (changed > 0n) {
      await repo.movePostCounter(trx, kind, postId, on ? 1 : -1);
    }
    return repo.postCounter(trx, kind, postId);
  });
}

export async function like(deps: Deps, viewer: Viewer, postId: string, on: boolean) {
  return { liked: on, likes: await setReaction(deps, viewer, postId, 'likes', on) };
}

export async function favorite(deps: Deps, viewer: Viewer, postId: string, on: boolean) {
  return { favorited: on, favorites: await setReaction(deps, viewer, postId, 'favorites', on) };
}

/** A user's favorites, most recently favorited first, in the shape of GET /api/posts (JSON text). */
export async function favoritesOf(deps: Deps, username: string, offset: number, limit: number) {
  const user = await findUserIdByName(deps.db, username);
  if (user === undefined) return notFound('User', username);
  const { postIds, total } = await repo.favoritesPage(deps.db, user, offset, limit);
  return postListJson(await itemsByIds(deps.db, postIds, deps.config), { total, estimated: false }, offset, limit, null);
}
