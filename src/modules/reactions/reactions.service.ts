import { moveCount } from '../../db/counters.ts';
import type { Deps, Viewer } from '../../core/deps.ts';
import { notFound } from '../../core/errors.ts';
import { sql } from 'kysely';
import { parseId } from '../../core/ids.ts';
import { postListJson } from '../posts/posts.service.ts';
import { itemsByIds } from '../posts/posts.repo.ts';
import { findUserIdByName } from '../users/users.repo.ts';

type Kind = 'likes' | 'favorites';
const COUNTER = { likes: 'like_count', favorites: 'favorite_count' } as const;

/**
 * Adds or removes the viewer's like/favorite. Idempotent; the stored counter moves only when a row
 * really appeared or disappeared, in the same transaction, so it stays exact under concurrency.
 */
async function setReaction(deps: Deps, viewer: Viewer, rawId: string, kind: Kind, on: boolean): Promise<number> {
  const postId = parseId(rawId, 'Post');
  const column = COUNTER[kind];
  return deps.db.transaction().execute(async (trx) => {
    const exists = await trx.selectFrom('posts').select('id').where('id', '=', postId).executeTakeFirst();
    if (!exists) notFound('Post', rawId);
    let changed: bigint;
    if (on) {
      const r = await trx
        .insertInto(kind)
        .values({ user_id: viewer.id, post_id: postId, created_at: deps.clock.now() })
        .onConflict((oc) => oc.columns(['user_id', 'post_id']).doNothing())
        .executeTakeFirst();
      changed = r.numInsertedOrUpdatedRows ?? 0n;
    } else {
      const r = await trx.deleteFrom(kind).where('user_id', '=', viewer.id).where('post_id', '=', postId).executeTakeFirst();
      changed = r.numDeletedRows;
    }
    if (changed > 0n) {
      await moveCount(trx, 'posts', column, postId, on ? 1 : -1).execute();
    }
    const row = await trx.selectFrom('posts').select(column).where('id', '=', postId).executeTakeFirstOrThrow();
    return (row as Record<string, number>)[column];
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
  const [rows, total] = await Promise.all([
    deps.db
      .selectFrom('favorites')
      .select('post_id')
      .where('user_id', '=', user)
      .orderBy('created_at', 'desc')
      .orderBy('post_id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute(),
    deps.db.selectFrom('favorites').select(sql<number>`count(*)`.as('n')).where('user_id', '=', user).executeTakeFirstOrThrow(),
  ]);
  return postListJson(
    await itemsByIds(
      deps.db,
      rows.map((r) => r.post_id),
      deps.config,
    ),
    { total: Number(total.n), estimated: false },
    offset,
    limit,
    null,
  );
}
