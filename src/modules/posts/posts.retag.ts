import type { Transaction } from 'kysely';
import type { DB } from '../../db/types.ts';
import { replacePostTags } from './post-tags.ts';
import { toTagString } from './tag-string.ts';

/**
 * Moves every post tagged `fromId` to the tag `to` (a post that has both just loses `fromId`),
 * post by post through the edit path (replacePostTags: links, counts, tag string, change log), in
 * the caller's transaction. Each post is touched as an edit is (updated_at), which moves the data
 * version. Kept in one function so that a big retag can later run as a background job. Returns
 * how many posts moved.
 */
export async function retagPosts(trx: Transaction<DB>, fromId: number, to: { id: number; name: string }, now: number): Promise<number> {
  const posts = await trx.selectFrom('post_tags').select('post_id').where('tag_id', '=', fromId).orderBy('post_id').execute();
  for (const { post_id } of posts) {
    // Writing first locks the post's row, as an edit does.
    const post = await trx.updateTable('posts').set({ updated_at: now }).where('id', '=', post_id).returning('created_at').executeTakeFirstOrThrow();
    const tags = await trx
      .selectFrom('post_tags')
      .innerJoin('tags', 'tags.id', 'post_tags.tag_id')
      .select(['tags.id', 'tags.name'])
      .where('post_tags.post_id', '=', post_id)
      .execute();
    const wanted = new Map(tags.filter((t) => t.id !== fromId).map((t) => [t.name, t.id]));
    wanted.set(to.name, to.id);
    await replacePostTags(trx, post_id, post.created_at, wanted);
  }
  return posts.length;
}

/** Rewrites the tag string of every post of a renamed tag (its links stay: the tag keeps its id). */
export async function renameInTagStrings(trx: Transaction<DB>, tagId: number, from: string, to: string, now: number): Promise<void> {
  const posts = await trx
    .selectFrom('posts')
    .innerJoin('post_tags', 'post_tags.post_id', 'posts.id')
    .select(['posts.id', 'posts.tag_string'])
    .where('post_tags.tag_id', '=', tagId)
    .orderBy('posts.id')
    .execute();
  for (const p of posts) {
    const names = p.tag_string.split(' ').map((n) => (n === from ? to : n));
    await trx
      .updateTable('posts')
      .set({ tag_string: toTagString(names), updated_at: now })
      .where('id', '=', p.id)
      .execute();
  }
}
