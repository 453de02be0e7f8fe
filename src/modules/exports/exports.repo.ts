import { type RawBuilder, sql } from 'kysely';
import type { Db } from '../../db/engine.ts';

/** The statement selecting the ids of the posts an export takes. */
export type MatchingPosts = RawBuilder<{ id: number }>;

// Posts.

/** The statement selecting every post's id. */
export function allPostIds(): MatchingPosts {
  return sql<{ id: number }>`SELECT posts.id FROM posts`;
}

/** How many posts `matching` selects. */
export async function countMatching(db: Db, matching: MatchingPosts): Promise<number> {
  const counted = await sql<{ n: number }>`SELECT COUNT(*) AS n FROM (${matching}) m`.execute(db);
  return Number(counted.rows[0].n);
}

/** Up to `limit` ids `matching` selects after `after`, ascending. */
export async function matchingIdsAfter(db: Db, matching: MatchingPosts, after: number, limit: number): Promise<number[]> {
  const page = await sql<{ id: number }>`SELECT m.id FROM (${matching}) m WHERE m.id > ${after} ORDER BY m.id LIMIT ${limit}`.execute(db);
  return page.rows.map((r) => Number(r.id));
}

/** What earlier imports recorded of these posts or comments, by local id, origin and origin id. */
export async function importRecordsOf(db: Db, kind: 'post' | 'comment', ids: number[]) {
  return db
    .selectFrom('import_records')
    .select(['local_id', 'origin', 'origin_id', 'author', 'score', 'fav_count'])
    .where('kind', '=', kind)
    .where('local_id', 'in', ids)
    .orderBy('local_id')
    .orderBy('origin')
    .orderBy('origin_id')
    .execute();
}

/** The comments on these posts, by id, with their authors' names. */
export async function commentsOnPosts(db: Db, ids: number[]) {
  return db
    .selectFrom('comments')
    .leftJoin('users', 'users.id', 'comments.user_id')
    .select(['comments.id', 'comments.post_id', 'users.username', 'comments.content', 'comments.created_at', 'comments.parent_id'])
    .where('comments.post_id', 'in', ids)
    .orderBy('comments.id')
    .execute();
}

/** The posts of `ids` by id, with their uploaders' names. */
export async function postsByIds(db: Db, ids: number[]) {
  return db
    .selectFrom('posts')
    .leftJoin('users', 'users.id', 'posts.uploader_id')
    .select([
      'posts.id',
      'posts.sha256',
      'posts.md5',
      'posts.mime',
      'posts.file_path',
      'posts.title',
      'posts.description',
      'posts.content_rating',
      'posts.source',
      'posts.created_at',
      'posts.parent_id',
      'posts.like_count',
      'posts.favorite_count',
      'users.username',
    ])
    .where('posts.id', 'in', ids)
    .orderBy('posts.id')
    .execute();
}

/** The tags (name and category) of these posts, by post. */
export async function tagsOfPosts(db: Db, ids: number[]) {
  return db
    .selectFrom('post_tags')
    .innerJoin('tags', 'tags.id', 'post_tags.tag_id')
    .select(['post_tags.post_id', 'tags.name', 'tags.category'])
    .where('post_tags.post_id', 'in', ids)
    .orderBy('post_tags.post_id')
    .execute();
}

/** The pool memberships of these posts, by post and pool. */
export async function poolsOfPosts(db: Db, ids: number[]) {
  return db.selectFrom('pool_posts').select(['post_id', 'pool_id', 'position']).where('post_id', 'in', ids).orderBy('post_id').orderBy('pool_id').execute();
}

// Board-wide files.

const TAG_COLUMNS = ['id', 'name', 'category', 'description'] as const;

/** The tags of these names, by id. */
export async function tagsNamed(db: Db, names: string[]) {
  return db.selectFrom('tags').select(TAG_COLUMNS).where('name', 'in', names).orderBy('id').execute();
}

/** Up to `limit` tags after id `after` worth a line: used, or with a category other than general or a description. */
export async function tagsWorthALineAfter(db: Db, after: number, limit: number) {
  return db
    .selectFrom('tags')
    .select(TAG_COLUMNS)
    .where('id', '>', after)
    .where((eb) => eb.or([eb('post_count', '>', 0), eb('category', '!=', 'general'), eb('description', '!=', '')]))
    .orderBy('id')
    .limit(limit)
    .execute();
}

const aliases = (db: Db) =>
  db.selectFrom('tag_aliases').innerJoin('tags', 'tags.id', 'tag_aliases.tag_id').select(['tag_aliases.from_name as from', 'tags.name as to']);

/** The aliases to tags of these names, by alias. */
export async function aliasesToTags(db: Db, names: string[]) {
  return aliases(db).where('tags.name', 'in', names).orderBy('tag_aliases.from_name').execute();
}

/** Up to `limit` aliases after the alias `after` (from the first when null), by alias. */
export async function aliasesAfter(db: Db, after: string | null, limit: number) {
  let q = aliases(db).orderBy('tag_aliases.from_name').limit(limit);
  if (after !== null) q = q.where('tag_aliases.from_name', '>', after);
  return q.execute();
}

const implications = (db: Db) =>
  db
    .selectFrom('tag_implications')
    .innerJoin('tags as f', 'f.id', 'tag_implications.from_id')
    .innerJoin('tags as t', 't.id', 'tag_implications.to_id')
    .select(['tag_implications.from_id', 'tag_implications.to_id', 'f.name as from', 't.name as to'])
    .orderBy('tag_implications.from_id')
    .orderBy('tag_implications.to_id');

/** The implications from tags of these names, with both ends' ids and names, by ids. */
export async function implicationsFromTags(db: Db, names: string[]) {
  return implications(db).where('f.name', 'in', names).execute();
}

/** Up to `limit` implications after the pair of ids `at`, with both ends' ids and names, by ids. */
export async function implicationsAfter(db: Db, at: { from: number; to: number }, limit: number) {
  return implications(db)
    .where((eb) =>
      eb.or([eb('tag_implications.from_id', '>', at.from), eb.and([eb('tag_implications.from_id', '=', at.from), eb('tag_implications.to_id', '>', at.to)])]),
    )
    .limit(limit)
    .execute();
}

const pools = (db: Db) => db.selectFrom('pools').select(['id', 'name', 'description', 'is_public']).orderBy('id');

/** The pools of these ids, by id. */
export async function poolsByIds(db: Db, ids: number[]) {
  return pools(db).where('id', 'in', ids).execute();
}

/** Up to `limit` pools after id `after`, by id. */
export async function poolsAfter(db: Db, after: number, limit: number) {
  return pools(db).where('id', '>', after).limit(limit).execute();
}
