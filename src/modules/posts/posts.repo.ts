import { sql, type Expression, type Kysely } from 'kysely';
import type { Database } from '../../db/engine.ts';
import { ITEM_JSON } from '../../db/schema/list-item.ts';
import { STATE_COLUMNS, stateOf, type OrderState } from './newest-order.ts';
import { prepared, preparedOnDatabase } from '../../db/prepared.ts';
import type { PostListItem } from './posts.schemas.ts';
import type { DB, NewPost } from '../../db/types.ts';
import { movePostCounts } from '../../db/counters.ts';
import { toTagString } from './tag-string.ts';

/** What a list query selects: the post id (for order and cursors) and the item's JSON (db/schema/list-item.ts). */
export const LIST_COLUMNS = ['posts.id', ITEM_JSON.as('json')] as const;

/** A page of list items: their post ids and the items as one JSON array text, in the same order. */
export interface Items {
  ids: number[];
  json: string;
  /** The data version (counters) as of the statement that read the items, when one did. */
  version?: number;
}

/** Items from rows of LIST_COLUMNS, in their order. */
export const itemsOf = (rows: { id: number; json: string }[]): Items => ({ ids: rows.map((r) => r.id), json: `[${rows.map((r) => r.json).join(',')}]` });

/** The data version beside a page's items, and NewestOrder's state with `state`. */
const alongside = (state: boolean) => sql`, (SELECT value FROM counters WHERE name = 'version') AS version${state ? sql`, ${STATE_COLUMNS}` : sql``}`;

/**
 * The posts of a list, joined into one text by the database: no row objects to build, key or
 * join in JavaScript. `ordered`: the aggregate sorts by the list's positions (PostgreSQL always
 * does; SQLite only to recover, as sorting the texts costs it several times the join: its join is
 * driven by the list, so it meets the posts in the list's order). `state`: NewestOrder's state
 * is read in the same statement.
 */
const itemsQuery = (ordered: boolean, state: boolean) =>
  preparedOnDatabase((db, p: { ids: unknown }) => {
    const j = db.idRows(p.ids);
    const joined = (value: Expression<unknown>) => (ordered ? db.joinedTextInOrder(value, j.position) : db.joinedText(value, j.position));
    return sql<ItemsRow>`SELECT ${joined(sql.ref('posts.id'))} AS ids, ${joined(ITEM_JSON)} AS json${alongside(state)} FROM ${j.from} JOIN posts ON posts.id = ${j.id}`;
  });
type ItemsRow = { ids: string | null; json: string | null; version: unknown; total?: unknown; maxId?: unknown };
const itemsInListOrder = itemsQuery(false, false);
const itemsSorted = itemsQuery(true, false);
const itemsWithState = itemsQuery(false, true);

/**
 * The posts of a run of consecutive ids, highest first (a newest page when ids follow dates):
 * one walk of the primary key, cheaper than a lookup an id.
 */
const itemsRunQuery = (state: boolean) =>
  preparedOnDatabase((db, p: { low: number; high: number }) => {
    const also = alongside(state);
    const run = sql`SELECT posts.id, ${ITEM_JSON} AS j FROM posts WHERE posts.id BETWEEN ${p.low} AND ${p.high} ORDER BY posts.id DESC`;
    return sql<ItemsRow>`SELECT ${db.joinedText(sql.ref('r.id'), sql`r.id DESC`)} AS ids, ${db.joinedText(sql.ref('r.j'), sql`r.id DESC`)} AS json${also} FROM (${run}) r`;
  });
const itemsRun = itemsRunQuery(false);
const itemsRunWithState = itemsRunQuery(true);

/** Whether `ids` count down by one from the first. */
const isRun = (ids: number[]) => ids.length > 1 && ids.every((id, i) => id === ids[0] - i);

/**
 * The items of the given posts, in the order of `ids` (missing ones left out). With `state`,
 * also NewestOrder's state as of the same statement (left out if the list had to be read again).
 */
export async function itemsByIds(db: Database, ids: number[], opts: { state?: boolean } = {}): Promise<Items & { state?: OrderState }> {
  if (ids.length === 0 && !opts.state) return { ids: [], json: '[]' };
  const param = { ids: db.listParam(ids) };
  const [row] = isRun(ids)
    ? await (opts.state ? itemsRunWithState : itemsRun)(db, { low: ids[ids.length - 1], high: ids[0] })
    : await (opts.state ? itemsWithState : itemsInListOrder)(db, param);
  const found = idList(row);
  if (followsList(found, ids))
    return { ids: found, json: `[${row?.json ?? ''}]`, version: Number(row?.version ?? 0), ...(opts.state && row ? { state: stateOf(row) } : {}) };
  const [sorted] = await itemsSorted(db, param);
  return { ids: idList(sorted), json: `[${sorted?.json ?? ''}]`, version: Number(sorted?.version ?? 0) };
}

/** The ids of a row whose `ids` column joined them with commas (none when null). */
export const idList = (row: { ids: string | null } | undefined): number[] => (row?.ids ? row.ids.split(',').map(Number) : []);

/** Whether `found` is `list` with some entries left out, in the same order. */
export function followsList(found: number[], list: number[]): boolean {
  let at = 0;
  for (const id of found) {
    while (at < list.length && list[at] !== id) at++;
    if (at++ === list.length) return false;
  }
  return true;
}

/**
 * A tag's links after a point in date order, as one text of post ids (handing over rows one by
 * one costs several times more) with the date of the last one.
 */
const linksAfter = (dir: 'asc' | 'desc') =>
  preparedOnDatabase((db, p: { tagId: number; createdAt: number; postId: number; limit: number }) => {
    const cmp = sql.raw(dir === 'desc' ? '<' : '>');
    const order = sql.raw(`created_at ${dir}, post_id ${dir}`);
    const last = sql.raw(dir === 'desc' ? 'min(created_at)' : 'max(created_at)');
    const links = sql`SELECT post_id, created_at FROM post_tags WHERE tag_id = ${p.tagId} AND (created_at, post_id) ${cmp} (${p.createdAt}, ${p.postId}) ORDER BY ${order} LIMIT ${p.limit}`;
    return sql<LinksRow>`SELECT ${db.joinedText(sql.ref('post_id'), order)} AS ids, ${last} AS "lastAt" FROM (${links}) l`;
  });
type LinksRow = { ids: string | null; lastAt: number | null };
const linksInOrder = { desc: linksAfter('desc'), asc: linksAfter('asc') };

/** Up to `limit` post ids of the tag's links after `after`, in date order, and where the next read starts. */
export async function tagLinks(db: Database, dir: 'asc' | 'desc', tagId: number, after: { createdAt: number; postId: number }, limit: number) {
  const [row] = await linksInOrder[dir](db, { tagId, ...after, limit });
  // Callers use this only when ids follow dates, so id order is date order: sorted, whatever order the aggregate met them in.
  const ids = idList(row).sort(dir === 'desc' ? (a, b) => b - a : (a, b) => a - b);
  return { ids, next: { createdAt: Number(row?.lastAt ?? 0), postId: ids[ids.length - 1] ?? 0 } };
}

/** Where tagLinks starts: before every link in that direction. */
export const linksStart = (dir: 'asc' | 'desc') => ({ createdAt: dir === 'desc' ? 8.64e15 + 1 : -8.64e15 - 1, postId: 0 });

/** Post list items of the given posts as objects, in the order of `ids` (for responses that add to them). */
export async function listItems(db: Database, ids: number[]): Promise<PostListItem[]> {
  return JSON.parse((await itemsByIds(db, ids)).json) as PostListItem[];
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
] as const;

const postById = prepared((db, p: { id: number }) =>
  db
    .selectFrom('posts')
    .innerJoin('users', 'users.id', 'posts.uploader_id')
    .select(DETAIL_COLUMNS)
    .select(['users.username', 'users.avatar_path'])
    .where('posts.id', '=', p.id),
);

export async function findPost(db: Kysely<DB>, id: number) {
  return (await postById(db, { id }))[0];
}

const tagsNamed = preparedOnDatabase((db, p: { names: unknown }) =>
  db
    .selectFrom('tags')
    .select(['id', 'name', 'post_count'])
    .where(db.oneOf(sql.ref('name'), p.names)),
);

/** A few names (the usual filters: one tag, a pair, a tag and a search word) as plain parameters, one statement for each number of them. */
const FEW_NAMES = 4;
const tagsNamedFew = Array.from({ length: FEW_NAMES + 1 }, (_, n) =>
  prepared((db, p: Record<string, string>) =>
    db
      .selectFrom('tags')
      .select(['id', 'name', 'post_count'])
      .where(
        'name',
        'in',
        Array.from({ length: n }, (_, i) => p[`n${i}`]),
      ),
  ),
);

/** The named tags that exist, with their stored post counts. */
export async function tagsByName(db: Database, names: string[]): Promise<Map<string, { id: number; count: number }>> {
  if (names.length === 0) return new Map();
  // A few names are index seeks, without unpacking a list first.
  const rows =
    names.length <= FEW_NAMES
      ? await tagsNamedFew[names.length](db, Object.fromEntries(names.map((name, i) => [`n${i}`, name])))
      : await tagsNamed(db, { names: db.listParam(names) });
  return new Map(rows.map((r) => [r.name, { id: r.id, count: r.post_count }]));
}

/**
 * Inserts a post with its tags in one transaction: creates missing tags, links them and keeps
 * each tag's post_count exact. Returns the new post id.
 */
export async function insertPost(db: Kysely<DB>, post: NewPost, tagNames: string[]): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const { id } = await trx
      .insertInto('posts')
      .values({ ...post, tag_string: toTagString(tagNames) })
      .returning('id')
      .executeTakeFirstOrThrow();
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
