import { sql, type Kysely } from 'kysely';
import { listParam, oneOf, type DialectName } from '../../db/dialect.ts';
import { ITEM_JSON } from './list-item.ts';
import { prepared, preparedPerDialect } from '../../db/prepared.ts';
import type { PostListItem } from './posts.schemas.ts';
import type { DB, NewPost } from '../../db/types.ts';
import { movePostCounts } from './posts.delete.ts';
import { toTagString } from './tag-string.ts';

/** What a list query selects: the post id (for order and cursors) and the item's JSON (list-item.ts). */
export const LIST_COLUMNS = ['posts.id', ITEM_JSON.as('json')] as const;
export interface ListRow {
  id: number;
  json: string;
}

const rowsByIds = preparedPerDialect((db, p: { ids: unknown }, dialect) =>
  db.selectFrom('posts').select(LIST_COLUMNS).where(oneOf(dialect, sql.ref('posts.id'), p.ids)));

/** List rows of the given posts, in the order of `ids` (missing ones left out). */
export async function listRowsByIds(db: Kysely<DB>, dialect: DialectName, ids: number[]): Promise<ListRow[]> {
  if (ids.length === 0) return [];
  const rows = await rowsByIds(db, dialect, { ids: listParam(dialect, ids) });
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => byId.get(id)).filter((r): r is ListRow => r !== undefined);
}

/** The rows' items as one JSON array text. */
export const itemsJson = (rows: ListRow[]): string => `[${rows.map((r) => r.json).join(',')}]`;

/** Post list items of the given posts as objects, in the order of `ids` (for responses that add to them). */
export async function listItems(db: Kysely<DB>, dialect: DialectName, ids: number[]): Promise<PostListItem[]> {
  return JSON.parse(itemsJson(await listRowsByIds(db, dialect, ids))) as PostListItem[];
}

const postById = prepared((db, p: { id: number }) =>
  db.selectFrom('posts').innerJoin('users', 'users.id', 'posts.uploader_id').selectAll('posts').select(['users.username', 'users.avatar_path']).where('posts.id', '=', p.id));

export async function findPost(db: Kysely<DB>, id: number) {
  return (await postById(db, { id }))[0];
}

const tagsNamed = preparedPerDialect((db, p: { names: unknown }, dialect) =>
  db.selectFrom('tags').select(['id', 'name', 'post_count']).where(oneOf(dialect, sql.ref('name'), p.names)));

/** The named tags that exist, with their stored post counts. */
export async function tagsByName(db: Kysely<DB>, dialect: DialectName, names: string[]): Promise<Map<string, { id: number; count: number }>> {
  if (names.length === 0) return new Map();
  const rows = await tagsNamed(db, dialect, { names: listParam(dialect, names) });
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
