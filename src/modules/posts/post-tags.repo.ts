import { sql } from 'kysely';
import type { Database, Tx } from '../../db/engine.ts';
import type { TagCategory } from '../../core/tag-categories.ts';

/** A link of a post to a tag, as post_tags keeps it. */
export interface TagLink {
  post_id: number;
  tag_id: number;
  created_at: number;
}

/** Creates the named tags that do not exist yet, with no posts, in the category asked for (else general); existing ones stay as they are. */
export async function insertMissingTags(trx: Tx, names: string[], now: number, categories: Map<string, TagCategory>): Promise<void> {
  await trx
    .insertInto('tags')
    .values(names.map((name) => ({ name, post_count: 0, created_at: now, category: categories.get(name) ?? 'general' })))
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
}

/** The ids and names of the tags of these names that exist. */
export async function findTagsNamed(trx: Tx, names: string[]) {
  return trx.selectFrom('tags').select(['id', 'name']).where('name', 'in', names).execute();
}

/** The ids of the tags of these names that exist. */
export async function findTagIdsNamed(trx: Tx, names: string[]) {
  return trx.selectFrom('tags').select('id').where('name', 'in', names).execute();
}

/** The tag ids a post is linked to (`tag_id`). */
export async function tagIdsOfPost(trx: Tx, postId: number) {
  return trx.selectFrom('post_tags').select('tag_id').where('post_id', '=', postId).execute();
}

/** The ids and names of a post's tags. */
export async function tagsOfPost(trx: Tx, postId: number) {
  return trx
    .selectFrom('post_tags')
    .innerJoin('tags', 'tags.id', 'post_tags.tag_id')
    .select(['tags.id', 'tags.name'])
    .where('post_tags.post_id', '=', postId)
    .execute();
}

/** Removes the post's links to these tags. */
export async function deleteTagLinks(trx: Tx, postId: number, tagIds: number[]): Promise<void> {
  await trx.deleteFrom('post_tags').where('post_id', '=', postId).where('tag_id', 'in', tagIds).execute();
}

/** Adds these links. */
export async function insertTagLinks(trx: Tx, links: TagLink[]): Promise<void> {
  await trx.insertInto('post_tags').values(links).execute();
}

/** Sets a post's tag string. */
export async function setTagString(trx: Tx, postId: number, tagString: string): Promise<void> {
  await trx.updateTable('posts').set({ tag_string: tagString }).where('id', '=', postId).execute();
}

/** Sets each post's tag string (post id -> text) and its updated_at to `now`, in one statement. */
export async function setTagStrings(trx: Tx, strings: Map<number, string>, now: number): Promise<void> {
  const cases = sql.join(
    [...strings].map(([id, text]) => sql`WHEN ${id} THEN ${text}`),
    sql` `,
  );
  await trx
    .updateTable('posts')
    .set({ updated_at: now, tag_string: sql<string>`CASE id ${cases} END` })
    .where('id', 'in', [...strings.keys()])
    .execute();
}

/**
 * The id, created_at and tag string of those of `postIds` that exist, in id order, their rows
 * locked until the transaction ends (`db` is the Database the transaction is on).
 */
export async function lockPostsToTag(db: Database, trx: Tx, postIds: number[]) {
  return db.lockRows(trx.selectFrom('posts').select(['id', 'created_at', 'tag_string']).where('id', 'in', postIds).orderBy('id')).execute();
}

/** The links between these posts and these tags. */
export async function linksAmong(trx: Tx, postIds: number[], tagIds: number[]) {
  return trx.selectFrom('post_tags').select(['post_id', 'tag_id']).where('post_id', 'in', postIds).where('tag_id', 'in', tagIds).execute();
}

/** How many of these tags each of these posts has (`n`), for the posts that have any. */
export async function linkCountsAmong(trx: Tx, postIds: number[], tagIds: number[]) {
  return trx
    .selectFrom('post_tags')
    .select(['post_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('post_id', 'in', postIds)
    .where('tag_id', 'in', tagIds)
    .groupBy('post_id')
    .execute();
}

/** Where a walk over a tag's posts stopped: post_tags' (tag_id, created_at, post_id) index order. */
export interface LinkCursor {
  at: number;
  post: number;
}

/**
 * The next `limit` links of a tag after `cursor`, in its index's order: only that tag's links are
 * read, and a step of a job costs the same at its end as at its start.
 */
export async function tagLinksAfter(trx: Tx, tagId: number, cursor: LinkCursor | null, limit: number) {
  const links = await trx
    .selectFrom('post_tags')
    .select(['post_id', 'created_at'])
    .where('tag_id', '=', tagId)
    .$if(cursor !== null, (qb) => qb.where((eb) => eb(eb.refTuple('created_at', 'post_id'), '>', eb.tuple(cursor!.at, cursor!.post))))
    .orderBy('created_at')
    .orderBy('post_id')
    .limit(limit)
    .execute();
  const last = links.at(-1);
  return { posts: links.map((l) => l.post_id), next: last ? { at: Number(last.created_at), post: last.post_id } : cursor };
}
