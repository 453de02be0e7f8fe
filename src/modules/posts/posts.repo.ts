import { sql, type Expression, type Kysely, type Transaction } from 'kysely';
import type { Database, Db, Tx } from '../../db/engine.ts';
import { ITEM_JSON } from '../../db/schema/list-item.ts';
import type { Config } from '../../config.ts';
import { publicItemJson } from '../../core/media-paths.ts';
import { prepared, preparedLookup, preparedOnDatabase } from '../../db/prepared.ts';
import type { PostListItem } from './posts.schemas.ts';
import type { DB, NewPost } from '../../db/types.ts';
import { Coalescer, coalescerPer } from '../../db/coalesce.ts';
import { insertPostLinked } from '../../db/queries/post-insert.ts';
import { toTagString } from './tag-string.ts';
import { tagsForWrite } from './post-tags.ts';
import type { TagInput } from '../tags/tag-name-rules.ts';
import type { TagCategory } from '../../core/tag-categories.ts';
import type { TagDetail } from './tag-details.ts';

/** A page of list items: their post ids and the items as one JSON array text, in the same order. */
export interface Items {
  ids: number[];
  json: string;
  /** The data version (counters) as of the statement that read the items, when one did. */
  version?: number;
}

/** The data version beside a page's items. */
const ALONGSIDE = sql`, (SELECT value FROM counters WHERE name = 'version') AS version`;

/**
 * The posts of a list, joined into one text by the database: no row objects to build, key or
 * join in JavaScript. SQLite's reads (PostgreSQL reads pages with others', itemsOfLists).
 * `ordered`: the aggregate sorts by the list's positions, only to recover, as sorting the texts
 * costs SQLite several times the join: its join is driven by the list, so it meets the posts in
 * the list's order.
 */
const itemsQuery = (ordered: boolean) =>
  preparedOnDatabase((db, p: { ids: unknown }) => {
    const j = db.idRows(p.ids);
    const joined = (value: Expression<unknown>) => (ordered ? db.joinedTextInOrder(value, j.position) : db.joinedText(value, j.position));
    return sql<ItemsRow>`SELECT ${joined(sql.ref('posts.id'))} AS ids, ${joined(ITEM_JSON)} AS json${ALONGSIDE} FROM ${j.from} JOIN posts ON posts.id = ${j.id}`;
  });
type ItemsRow = { ids: string | null; json: string | null; version: unknown };
const itemsInListOrder = itemsQuery(false);
const itemsSorted = itemsQuery(true);

/**
 * The posts of a run of consecutive ids, highest first (a newest page when ids follow dates):
 * one walk of the primary key, cheaper than a lookup an id.
 */
const itemsRun = preparedOnDatabase((db, p: { low: number; high: number }) => {
  const run = sql`SELECT posts.id, ${ITEM_JSON} AS j FROM posts WHERE posts.id BETWEEN ${p.low} AND ${p.high} ORDER BY posts.id DESC`;
  return sql<ItemsRow>`SELECT ${db.joinedText(sql.ref('r.id'), sql`r.id DESC`)} AS ids, ${db.joinedText(sql.ref('r.j'), sql`r.id DESC`)} AS json${ALONGSIDE} FROM (${run}) r`;
});

/** Whether `ids` count down by one from the first. */
const isRun = (ids: number[]) => ids.length > 1 && ids.every((id, i) => id === ids[0] - i);

/**
 * The items of the given posts, in the order of `ids` (missing ones left out), and the data
 * version they were read at; media URLs under `urls.mediaPublicUrl` when set.
 */
export async function itemsByIds(db: Database, ids: number[], urls: Pick<Config, 'mediaPublicUrl'>): Promise<Items> {
  const items = await storedItems(db, ids);
  return { ...items, json: publicItemJson(urls, items.json) };
}

/**
 * The items of several pages in one statement, a row a page that found any (`page`: its index in
 * the lists given), each with the data version. What pages of concurrent requests are read with
 * where joining them pays (Database.coalesces).
 */
const itemsOfPages = preparedOnDatabase((db, p: { ids: unknown; pages: unknown }) => {
  const j = db.idPageRows(p.ids, p.pages);
  const joined = (value: Expression<unknown>) => db.joinedTextInOrder(value, j.position);
  return sql<ItemsRow & { page: number }>`SELECT ${j.page} AS page, ${joined(sql.ref('posts.id'))} AS ids, ${joined(ITEM_JSON)} AS json${ALONGSIDE}
    FROM ${j.from} JOIN posts ON posts.id = ${j.id} GROUP BY ${j.page}`;
});

/** The items of each of several lists of posts, in one statement (itemsOfPages). */
export async function itemsOfLists(db: Database, lists: number[][]): Promise<Items[]> {
  const ids = lists.flat();
  const pages = lists.flatMap((list, page) => list.map(() => page));
  const rows = await itemsOfPages(db, { ids: db.listParam(ids), pages: db.listParam(pages) });
  // A list that found none of its posts has no row; the version is the statement's, on any row.
  const version = rows.length ? Number(rows[0].version) : undefined;
  const out: Items[] = lists.map(() => ({ ids: [], json: '[]', version }));
  for (const r of rows) out[Number(r.page)] = { ids: idList(r), json: `[${r.json ?? ''}]`, version };
  return out;
}

const pageBatches = coalescerPer((db: Database) => new Coalescer<number[], Items>((lists) => itemsOfLists(db, lists)));

async function storedItems(db: Database, ids: number[]): Promise<Items> {
  if (ids.length === 0) return { ids: [], json: '[]' };
  if (db.coalesces) return pageBatches(db).run(ids);
  const param = { ids: db.listParam(ids) };
  const [row] = isRun(ids) ? await itemsRun(db, { low: ids[ids.length - 1], high: ids[0] }) : await itemsInListOrder(db, param);
  const found = idList(row);
  if (followsList(found, ids)) return { ids: found, json: `[${row?.json ?? ''}]`, version: Number(row?.version ?? 0) };
  const [sorted] = await itemsSorted(db, param);
  return { ids: idList(sorted), json: `[${sorted?.json ?? ''}]`, version: Number(sorted?.version ?? 0) };
}

/** The ids of a row whose `ids` column joined them with commas (none when null). */
const idList = (row: { ids: string | null } | undefined): number[] => (row?.ids ? row.ids.split(',').map(Number) : []);

/** Whether `found` is `list` with some entries left out, in the same order. */
export function followsList(found: number[], list: number[]): boolean {
  let at = 0;
  for (const id of found) {
    while (at < list.length && list[at] !== id) at++;
    if (at++ === list.length) return false;
  }
  return true;
}

/** Post list items of the given posts as objects, in the order of `ids` (for responses that add to them). */
export async function listItems(db: Database, ids: number[], urls: Pick<Config, 'mediaPublicUrl'>): Promise<PostListItem[]> {
  return JSON.parse((await itemsByIds(db, ids, urls)).json) as PostListItem[];
}

/** What a post's detail shows (the stored list item is not read again). */
const DETAIL_COLUMNS = [
  'posts.id',
  'posts.uploader_id',
  'posts.title',
  'posts.description',
  'posts.content_rating',
  'posts.media_type',
  'posts.mime',
  'posts.file_size',
  'posts.width',
  'posts.height',
  'posts.duration',
  'posts.codecs',
  'posts.file_path',
  'posts.thumb_path',
  'posts.preview_path',
  'posts.like_count',
  'posts.comment_count',
  'posts.favorite_count',
  'posts.tag_string',
  'posts.created_at',
  'posts.updated_at',
  'posts.source',
  'posts.parent_id',
] as const;

/**
 * A post's detail row, and in the same statement its children's ids, oldest first, and the data
 * version it was read at: the version tells whether the tags' categories and counts kept in
 * memory (TagCache) hold for it. Reading them here instead, a join of the post's tag links to
 * tags, was 45% of the statement's time at a million posts.
 */
const postById = preparedLookup(
  (db, keyIs) =>
    db
      .selectFrom('posts')
      .innerJoin('users', 'users.id', 'posts.uploader_id')
      .select(DETAIL_COLUMNS)
      .select(['users.username', 'users.avatar_path'])
      .select(sql<number | string>`(SELECT value FROM counters WHERE name = 'version')`.as('version'))
      .select(sql<string | null>`(SELECT ${db.joinedTextInOrder(sql.ref('c.id'), sql`c.id`)} FROM posts c WHERE c.parent_id = posts.id)`.as('children'))
      .where(keyIs(sql.ref('posts.id'))),
  (row) => row.id,
);

export async function findPost(db: Database, id: number) {
  return (await postById(db, id))[0];
}

/**
 * Inserts a post with its tags in one transaction: alias names read as their targets, missing tags
 * created, links made and each tag's post_count kept exact. Returns the new post id.
 */
export async function insertPost(db: Kysely<DB>, post: NewPost, tags: TagInput): Promise<number> {
  return db.transaction().execute(async (trx) => insertPostTagged(trx, post, await tagsForWrite(trx, tags, post.created_at), true));
}

/**
 * The post's row, its links to `tags` (what tagsForWrite made of the upload's tags) and the tags'
 * counts, in the caller's transaction: its last statement on PostgreSQL (insertPostLinked says why),
 * which commits it when `commits`.
 */
export async function insertPostTagged(trx: Transaction<DB>, post: NewPost, tags: Map<string, number>, commits = false): Promise<number> {
  return insertPostLinked(trx, { ...post, tag_string: toTagString(tags.keys()) }, [...tags.values()], commits);
}

const reactionsOf = prepared(
  (_db, p: { userId: number; postId: number }) =>
    sql<{ liked: number; favorited: number }>`SELECT
    CASE WHEN EXISTS (SELECT 1 FROM likes WHERE user_id = ${p.userId} AND post_id = ${p.postId}) THEN 1 ELSE 0 END AS liked,
    CASE WHEN EXISTS (SELECT 1 FROM favorites WHERE user_id = ${p.userId} AND post_id = ${p.postId}) THEN 1 ELSE 0 END AS favorited`,
);

/** Whether the viewer liked and favorited the post (false for anonymous). */
export async function viewerReactions(db: Kysely<DB>, postId: number, userId: number | null) {
  if (userId === null) return { liked: false, favorited: false };
  const [mine] = await reactionsOf(db, { userId, postId });
  return { liked: mine.liked === 1, favorited: mine.favorited === 1 };
}

const tagDetailRows = preparedOnDatabase((db, p: { names: unknown }) =>
  db
    .selectFrom('tags')
    .select(['name', 'category', 'post_count'])
    .where(db.oneOf(sql.ref('name'), p.names)),
);

/** The named tags' categories and post counts, in the order of `names` (a post's tags: all exist). */
export async function tagDetails(db: Database, names: string[]) {
  if (names.length === 0) return [];
  const rows = await tagDetailRows(db, { names: db.listParam(names) });
  return inNamesOrder(names, new Map(rows.map((r) => [r.name, r])));
}

function inNamesOrder(names: string[], byName: Map<string, { category: string; post_count: number }>): TagDetail[] {
  return names.map((name) => {
    const r = byName.get(name);
    return { name, category: (r?.category ?? 'general') as TagCategory, postsCount: r?.post_count ?? 0 };
  });
}

/** The stored parts of the list items of a range of ids, newest first (db/schema/list-item.ts). */
const partsOfRange = prepared(
  (_db, p: { low: number; high: number }) =>
    sql<{ id: number; item_head: string; item_tail: string }>`SELECT id, item_head, item_tail FROM posts
    WHERE id BETWEEN ${p.low} AND ${p.high} ORDER BY id DESC`,
);

/** The id and stored list item parts (item_head, item_tail) of the posts with ids in low..high, newest first. */
export async function itemPartsOfRange(db: Database, low: number, high: number) {
  return partsOfRange(db, { low, high });
}

/** The post's uploader (`uploader_id`), or undefined when there is no such post. */
export async function findPostUploader(db: Db, postId: number) {
  return db.selectFrom('posts').select('uploader_id').where('id', '=', postId).executeTakeFirst();
}

/** The post's id when it exists, else undefined. */
export async function findPostId(db: Db, postId: number) {
  return db.selectFrom('posts').select('id').where('id', '=', postId).executeTakeFirst();
}

/** Whether the chain of parents above `from` (from's parent, its parent, ...) holds `target`. */
export async function parentChainHas(db: Db, from: number, target: number): Promise<boolean> {
  // UNION (not UNION ALL) ends the walk even on a cycle left by older data.
  const found = await sql<{ id: number }>`WITH RECURSIVE chain(id) AS (
      SELECT parent_id FROM posts WHERE id = ${from}
      UNION SELECT p.parent_id FROM posts p JOIN chain c ON p.id = c.id
    ) SELECT id FROM chain WHERE id = ${target}`.execute(db);
  return found.rows.length > 0;
}

/** What deleting a post needs of it: uploader, media paths, title and the uploader's name; undefined when there is no such post. */
export async function findPostToDelete(db: Db, postId: number) {
  return db
    .selectFrom('posts')
    .innerJoin('users', 'users.id', 'posts.uploader_id')
    .select(['uploader_id', 'file_path', 'thumb_path', 'preview_path', 'title', 'users.username'])
    .where('posts.id', '=', postId)
    .executeTakeFirst();
}

/** Sets the post's updated_at to `now`, which locks its row; returns its `created_at`, or undefined when there is no such post. */
export async function touchPost(trx: Tx, postId: number, now: number) {
  return trx.updateTable('posts').set({ updated_at: now }).where('id', '=', postId).returning('created_at').executeTakeFirst();
}

/** touchPost for an edit: returns the post's `uploader_id` and `created_at`, or undefined. */
export async function touchPostToEdit(trx: Tx, postId: number, now: number) {
  return trx.updateTable('posts').set({ updated_at: now }).where('id', '=', postId).returning(['uploader_id', 'created_at']).executeTakeFirst();
}

/** The fields of a post an edit sets directly (its tags go through post-tags.ts). */
export interface PostFields {
  title?: string;
  description?: string;
  content_rating?: string;
  source?: string | null;
  parent_id?: number | null;
}

/** Sets these fields of the post. */
export async function updatePostFields(trx: Tx, postId: number, set: PostFields): Promise<void> {
  await trx.updateTable('posts').set(set).where('id', '=', postId).execute();
}

/**
 * Locks the post's row by writing it unchanged (updated_at to itself); returns its media paths
 * (file_path, thumb_path, preview_path), or undefined when there is no such post.
 */
export async function lockPostToDelete(trx: Tx, postId: number) {
  return trx
    .updateTable('posts')
    .set((eb) => ({ updated_at: eb.ref('updated_at') }))
    .where('id', '=', postId)
    .returning(['file_path', 'thumb_path', 'preview_path'])
    .executeTakeFirst();
}

/** The pools the post is in (`pool_id`). */
export async function poolIdsOfPost(trx: Tx, postId: number) {
  return trx.selectFrom('pool_posts').select('pool_id').where('post_id', '=', postId).execute();
}

/** Sets updated_at to `now` on the post's children, which locks their rows; returns their ids (`id`). */
export async function touchChildren(trx: Tx, parentId: number, now: number) {
  return trx.updateTable('posts').set({ updated_at: now }).where('parent_id', '=', parentId).returning('id').execute();
}

/** Leaves these posts without a parent. */
export async function clearParents(trx: Tx, postIds: number[]): Promise<void> {
  await trx.updateTable('posts').set({ parent_id: null }).where('id', 'in', postIds).execute();
}

/** Deletes the post's row (what hangs off it goes by ON DELETE CASCADE). */
export async function deletePostRow(trx: Tx, postId: number): Promise<void> {
  await trx.deleteFrom('posts').where('id', '=', postId).execute();
}
