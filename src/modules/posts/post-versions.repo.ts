import { sql } from 'kysely';
import type { Db, Tx } from '../../db/engine.ts';
import type { PostVersionsTable } from '../../db/types.ts';

/** The five fields a version keeps, as post_versions and posts both name them. */
const FIELDS = ['title', 'tag_string', 'content_rating', 'source', 'parent_id'] as const;

/** Gives each of `postIds` without versions its version 1: its row as it is now, by its uploader at its upload. */
export async function insertFirstVersions(trx: Tx, postIds: number[]): Promise<void> {
  await trx
    .insertInto('post_versions')
    .columns(['post_id', 'version', 'editor_id', 'created_at', ...FIELDS])
    .expression((eb) =>
      eb
        .selectFrom('posts')
        .select(['posts.id', sql<number>`1`.as('version'), 'posts.uploader_id', 'posts.created_at', ...FIELDS.map((f) => `posts.${f}` as const)])
        .where('posts.id', 'in', postIds)
        .where(({ not, exists, selectFrom }) => not(exists(selectFrom('post_versions as v').select('v.version').whereRef('v.post_id', '=', 'posts.id')))),
    )
    .execute();
}

/** The number of a post's latest version, as SQL over `posts`. */
const LATEST = sql<number>`(SELECT MAX(v.version) FROM post_versions v WHERE v.post_id = posts.id)`;

/** Whether the latest version has the post's fields (null and empty alike), as SQL over `posts`. */
const UNCHANGED = sql<boolean>`EXISTS (SELECT 1 FROM post_versions v WHERE v.post_id = posts.id AND v.version = ${LATEST}
  AND v.title = posts.title AND v.tag_string = posts.tag_string AND v.content_rating = posts.content_rating
  AND COALESCE(v.source, '') = COALESCE(posts.source, '') AND COALESCE(v.parent_id, 0) = COALESCE(posts.parent_id, 0))`;

/** Gives each of `postIds` whose fields differ from its latest version a new version, by `editorId` (null: the system) at `now`. */
export async function insertChangedVersions(trx: Tx, postIds: number[], editorId: number | null, now: number): Promise<void> {
  await trx
    .insertInto('post_versions')
    .columns(['post_id', 'version', 'editor_id', 'created_at', ...FIELDS])
    .expression((eb) =>
      eb
        .selectFrom('posts')
        .select([
          'posts.id',
          sql<number>`${LATEST} + 1`.as('version'),
          sql<number | null>`CAST(${editorId} AS integer)`.as('editor_id'),
          sql<number>`CAST(${now} AS bigint)`.as('created_at'),
          ...FIELDS.map((f) => `posts.${f}` as const),
        ])
        .where('posts.id', 'in', postIds)
        .where(sql<boolean>`NOT ${UNCHANGED}`),
    )
    .execute();
}

/** A version as history lists it: its row, with the editor's name for their id. */
export type VersionRow = Omit<PostVersionsTable, 'post_id' | 'editor_id'> & { editor: string | null };

/** A post's versions, oldest first; none for a post never changed since its upload (or that does not exist). */
export async function versionsOf(db: Db, postId: number): Promise<VersionRow[]> {
  return db
    .selectFrom('post_versions as v')
    .leftJoin('users as u', 'u.id', 'v.editor_id')
    .select(['v.version', 'u.username as editor', 'v.created_at', ...FIELDS.map((f) => `v.${f}` as const)])
    .where('v.post_id', '=', postId)
    .orderBy('v.version')
    .execute();
}

/** A post as its version 1 when it has none yet: its row as it is, by its uploader. */
export async function unchangedPost(db: Db, postId: number): Promise<VersionRow | undefined> {
  return db
    .selectFrom('posts')
    .innerJoin('users as u', 'u.id', 'posts.uploader_id')
    .select([sql<number>`1`.as('version'), 'u.username as editor', 'posts.created_at', ...FIELDS.map((f) => `posts.${f}` as const)])
    .where('posts.id', '=', postId)
    .executeTakeFirst();
}
