import { type RawBuilder, sql } from 'kysely';
import type { Db, Tx } from '../../db/engine.ts';

/** A statement listing posts by id (the search's allMatchingPosts). */
export type MatchingPosts = RawBuilder<{ id: number }>;

/** Lists the posts `matching` gives under job `jobId` (job_posts), in one statement. */
export async function insertJobPosts(trx: Tx, jobId: number, matching: MatchingPosts): Promise<void> {
  await sql`INSERT INTO job_posts (job_id, post_id) SELECT CAST(${jobId} AS integer), m.id FROM (${matching}) m`.execute(trx);
}

/** How many posts are listed under the job (`n`). */
export async function countJobPosts(trx: Tx, jobId: number) {
  return trx
    .selectFrom('job_posts')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('job_id', '=', jobId)
    .executeTakeFirstOrThrow();
}

/** The first `limit` posts listed under the job, by post id. */
export async function nextJobPosts(trx: Tx, jobId: number, limit: number) {
  return trx.selectFrom('job_posts').select('post_id').where('job_id', '=', jobId).orderBy('post_id').limit(limit).execute();
}

/** Removes the job's listed posts up to and including post `last`. */
export async function deleteJobPostsThrough(trx: Tx, jobId: number, last: number): Promise<void> {
  await trx.deleteFrom('job_posts').where('job_id', '=', jobId).where('post_id', '<=', last).execute();
}

/** Who created the job (`created_by`), or undefined when it is gone. */
export async function findJobCreator(trx: Tx, jobId: number) {
  return trx.selectFrom('jobs').select('created_by').where('id', '=', jobId).executeTakeFirst();
}

/** The tag's stored post count (`post_count`), or undefined when there is no such tag. */
export async function findTagPostCount(db: Db, tagId: number) {
  return db.selectFrom('tags').select('post_count').where('id', '=', tagId).executeTakeFirst();
}

/** The tag's id and name, or undefined. */
export async function findTagById(trx: Tx, tagId: number) {
  return trx.selectFrom('tags').select(['id', 'name']).where('id', '=', tagId).executeTakeFirst();
}

/** The tag's name (`name`), or undefined. */
export async function findTagName(trx: Tx, tagId: number) {
  return trx.selectFrom('tags').select('name').where('id', '=', tagId).executeTakeFirst();
}

/** How many posts are linked to the tag (`n`), counted in post_tags. */
export async function countTagLinks(db: Db, tagId: number) {
  return db
    .selectFrom('post_tags')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tag_id', '=', tagId)
    .executeTakeFirstOrThrow();
}

/** The target tag (id and name) of the alias `from` when it still leads to tag `toId`, or undefined. */
export async function findAliasTarget(trx: Tx, from: string, toId: number) {
  return trx
    .selectFrom('tag_aliases')
    .innerJoin('tags', 'tags.id', 'tag_aliases.tag_id')
    .select(['tags.id', 'tags.name'])
    .where('tag_aliases.from_name', '=', from)
    .where('tag_aliases.tag_id', '=', toId)
    .executeTakeFirst();
}

/** The first `limit` posts linked to the tag with ids above `after`, by post id. */
export async function postsOfTagAfter(trx: Tx, tagId: number, after: number, limit: number) {
  return trx.selectFrom('post_tags').select('post_id').where('tag_id', '=', tagId).where('post_id', '>', after).orderBy('post_id').limit(limit).execute();
}

/** The ids and tag strings of those of `postIds` that exist, in id order. */
export async function tagStringsOf(trx: Tx, postIds: number[]) {
  return trx.selectFrom('posts').select(['id', 'tag_string']).where('id', 'in', postIds).orderBy('id').execute();
}

/** Sets a post's tag string and its updated_at. */
export async function setTagStringAt(trx: Tx, postId: number, tagString: string, now: number): Promise<void> {
  await trx.updateTable('posts').set({ tag_string: tagString, updated_at: now }).where('id', '=', postId).execute();
}
