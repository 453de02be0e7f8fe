import type { Kysely } from 'kysely';
import type { DB } from '../../db/types.ts';

/**
 * Deletes a post and everything hanging off it in one transaction, keeping every stored counter
 * exact: tag post counts and pool post counts go down; likes, favorites, comments, tag links and
 * pool entries go with the post (ON DELETE CASCADE). Returns the media paths to remove, or null.
 */
export async function deletePostRows(db: Kysely<DB>, postId: number): Promise<string[] | null> {
  return db.transaction().execute(async (trx) => {
    const post = await trx.selectFrom('posts').select(['file_path', 'thumb_path', 'preview_path']).where('id', '=', postId).executeTakeFirst();
    if (!post) return null;
    await trx
      .updateTable('tags')
      .set((eb) => ({ post_count: eb('post_count', '-', 1) }))
      .where('id', 'in', trx.selectFrom('post_tags').select('tag_id').where('post_id', '=', postId))
      .execute();
    await trx
      .updateTable('pools')
      .set((eb) => ({ post_count: eb('post_count', '-', 1) }))
      .where('id', 'in', trx.selectFrom('pool_posts').select('pool_id').where('post_id', '=', postId))
      .execute();
    await trx.deleteFrom('posts').where('id', '=', postId).execute();
    return [post.file_path, post.thumb_path, post.preview_path].filter((p): p is string => Boolean(p));
  });
}
