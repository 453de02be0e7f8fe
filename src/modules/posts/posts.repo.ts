import type { Kysely } from 'kysely';
import type { DB, NewPost } from '../../db/types.ts';
import { movePostCounts } from './posts.delete.ts';
import { toTagString } from './tag-string.ts';

/** The columns a post list item needs (the uploader's name from users). */
export const LIST_COLUMNS = [
  'posts.id', 'posts.title', 'posts.thumb_path', 'posts.file_path', 'posts.like_count', 'posts.comment_count',
  'posts.favorite_count', 'posts.content_rating', 'posts.media_type', 'posts.width', 'posts.height',
  'posts.created_at', 'posts.tag_string', 'users.username',
] as const;

export function listItemQuery(db: Kysely<DB>) {
  return db.selectFrom('posts').innerJoin('users', 'users.id', 'posts.uploader_id').select([...LIST_COLUMNS]);
}
export type ListRow = Awaited<ReturnType<ReturnType<typeof listItemQuery>['execute']>>[number];

/** List rows of the given posts, in the order of `ids` (missing ones left out). */
export async function listRowsByIds(db: Kysely<DB>, ids: number[]): Promise<ListRow[]> {
  if (ids.length === 0) return [];
  const rows = await listItemQuery(db).where('posts.id', 'in', ids).execute();
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => byId.get(id)).filter((r): r is ListRow => r !== undefined);
}

export async function findPost(db: Kysely<DB>, id: number) {
  return db
    .selectFrom('posts')
    .innerJoin('users', 'users.id', 'posts.uploader_id')
    .selectAll('posts')
    .select(['users.username', 'users.avatar_path'])
    .where('posts.id', '=', id)
    .executeTakeFirst();
}

/** The named tags that exist, with their stored post counts. */
export async function tagsByName(db: Kysely<DB>, names: string[]): Promise<Map<string, { id: number; count: number }>> {
  if (names.length === 0) return new Map();
  const rows = await db.selectFrom('tags').select(['id', 'name', 'post_count']).where('name', 'in', names).execute();
  return new Map(rows.map((r) => [r.name, { id: r.id, count: r.post_count }]));
}

/**
 * Inserts a post with its tags in one transaction: creates missing tags, links them and keeps
 * each tag's post_count exact. Returns the new post id.
 */
export async function insertPost(db: Kysely<DB>, post: NewPost, tagNames: string[]): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const { id } = await trx.insertInto('posts').values({ ...post, tag_string: toTagString(tagNames) }).returning('id').executeTakeFirstOrThrow();
    if (tagNames.length > 0) {
      // Sorted names and per-row count updates in id order: concurrent uploads and edits lock tags in one order.
      const sorted = [...tagNames].sort();
      await trx
        .insertInto('tags')
        .values(sorted.map((name) => ({ name, post_count: 0, created_at: post.created_at })))
        .onConflict((oc) => oc.column('name').doNothing())
        .execute();
      const ids = (await trx.selectFrom('tags').select('id').where('name', 'in', sorted).execute()).map((t) => t.id);
      await trx
        .insertInto('post_tags')
        .values(ids.map((tag_id) => ({ post_id: id, tag_id, created_at: post.created_at })))
        .execute();
      await movePostCounts(trx, 'tags', new Map(ids.map((t) => [t, 1])));
    }
    return id;
  });
}

/** Whether the viewer liked and favorited the post (false for anonymous). */
export async function viewerReactions(db: Kysely<DB>, postId: number, userId: number | null) {
  if (userId === null) return { liked: false, favorited: false };
  const [like, fav] = await Promise.all([
    db.selectFrom('likes').select('post_id').where('user_id', '=', userId).where('post_id', '=', postId).executeTakeFirst(),
    db.selectFrom('favorites').select('post_id').where('user_id', '=', userId).where('post_id', '=', postId).executeTakeFirst(),
  ]);
  return { liked: like !== undefined, favorited: fav !== undefined };
}
