import type { Rating } from '../../core/schemas.ts';
import { sql, type Expression, type ExpressionBuilder, type Kysely, type SqlBool } from 'kysely';
import type { DB } from '../../db/types.ts';
import type { Database } from '../../db/engine.ts';
import type { Sort } from './posts.schemas.ts';
import { LIST_COLUMNS, idList, itemsByIds, itemsOf, type Items } from './posts.repo.ts';
import { prepared, preparedOnDatabase } from '../../db/prepared.ts';
import { counter } from '../../db/counters.ts';
// Exact counts are taken up to the search's cap; past it the total is an estimate, and says so.
import { COUNT_CAP } from '../../search/sql.ts';

/** A resolved post filter: names already turned into ids (with their stored counts) by the service. */
export interface PostFilter {
  uploaderId?: number;
  tags: { id: number; name: string; count: number }[];
  /** Each term: title substring, or (when a tag of that name exists) that tag, with its post count. */
  terms: { text: string; tagId: number | null; tagCount: number }[];
  rating?: Rating;
  minLikes?: number;
  from?: number;
  to?: number;
  /** Keyset cursor (newest order): only posts after this one. */
  before?: { createdAt: number; id: number };
}

type FilterPart = 'tags' | 'terms' | 'uploaderId' | 'rating' | 'minLikes' | 'from' | 'to' | 'before';

/** Whether the filter sets nothing but the given parts (each fast path serves one shape). */
export function usesOnly(f: PostFilter, ...allowed: FilterPart[]): boolean {
  const set: FilterPart[] = [];
  if (f.tags.length) set.push('tags');
  if (f.terms.length) set.push('terms');
  for (const key of ['uploaderId', 'rating', 'minLikes', 'from', 'to', 'before'] as const) if (f[key] !== undefined) set.push(key);
  return set.every((part) => allowed.includes(part));
}

/** Newest posts sampled to estimate a large total. */
const SAMPLE = 2_000;
/**
 * Newest posts of the driving tag sampled to estimate a total through it: each is a random row
 * read (~2.5 us at a million posts), so fewer than SAMPLE; about ±10% when one in ten match.
 */
const TAG_SAMPLE = 500;
/** A tag with at most this many posts drives the query whatever the order (its posts are few to sort). */
const SMALL_TAG = 5_000;

const ORDER: Record<Sort, [string, 'asc' | 'desc'][]> = {
  newest: [
    ['created_at', 'desc'],
    ['id', 'desc'],
  ],
  oldest: [
    ['created_at', 'asc'],
    ['id', 'asc'],
  ],
  most_liked: [
    ['like_count', 'desc'],
    ['created_at', 'desc'],
    ['id', 'desc'],
  ],
  most_commented: [
    ['comment_count', 'desc'],
    ['created_at', 'desc'],
    ['id', 'desc'],
  ],
  most_favorited: [
    ['favorite_count', 'desc'],
    ['created_at', 'desc'],
    ['id', 'desc'],
  ],
};

type EB = ExpressionBuilder<DB, 'posts'>;

/**
 * The filter's conditions. `ratingIndex`: whether the (rating, likes) index may serve the rating
 * (when the order is most liked, or to count rating + min likes); elsewhere it would have SQLite
 * collect and sort every post of a rating.
 */
function where(db: Database, f: PostFilter, ratingIndex: boolean, skipTag?: number) {
  return (eb: EB) => {
    const parts: Expression<SqlBool>[] = [];
    // EXISTS probes the (post_id, tag_id) key per row; IN would first collect every post of the tag.
    const hasTag = (tagId: number) =>
      eb.exists(eb.selectFrom('post_tags').select(sql`1`.as('one')).whereRef('post_tags.post_id', '=', 'posts.id').where('post_tags.tag_id', '=', tagId));
    if (f.uploaderId !== undefined) parts.push(eb('posts.uploader_id', '=', f.uploaderId));
    // A tag the rows are not drawn from is checked on the row's own tag string: the row is read
    // anyway, and a probe of post_tags would be one more random read per candidate.
    for (const t of f.tags) if (t.id !== skipTag) parts.push(db.listsTag(eb.ref('posts.tag_string'), t.name));
    for (const term of f.terms) {
      parts.push(
        term.tagId === null
          ? db.titleContains(eb.ref('posts.id'), eb.ref('posts.title'), term.text)
          : db.termMatches(eb.ref('posts.id'), eb.ref('posts.title'), term.text, term.tagId, hasTag(term.tagId)),
      );
    }
    if (f.rating) {
      const rating = ratingIndex ? eb.ref('posts.content_rating') : db.notIndexed(eb.ref('posts.content_rating'));
      parts.push(sql<SqlBool>`${rating} = ${f.rating}`);
    }
    if (f.minLikes !== undefined) parts.push(eb('posts.like_count', '>=', f.minLikes));
    if (f.from !== undefined) parts.push(eb('posts.created_at', '>=', f.from));
    if (f.to !== undefined) parts.push(eb('posts.created_at', '<=', f.to));
    if (f.before) {
      // A row-value comparison, so both engines seek the (created_at, id) index instead of scanning it.
      parts.push(sql<SqlBool>`(posts.created_at, posts.id) < (${f.before.createdAt}, ${f.before.id})`);
    }
    return eb.and(parts);
  };
}

/** The tag whose posts drive the query: the rarest, when the order follows its index or its posts are few. */
function drivingTag(f: PostFilter, sort: Sort) {
  if (f.tags.length === 0) return undefined;
  const rarest = f.tags.reduce((a, b) => (b.count < a.count ? b : a));
  return sort === 'newest' || sort === 'oldest' || rarest.count <= SMALL_TAG ? rarest : undefined;
}

/** Post ids in one of the rows' source: all posts, or the posts of the driving tag (its index is in date order). */
function source(db: Database, f: PostFilter, sort: Sort, ratingIndex = sort === 'most_liked') {
  const driver = drivingTag(f, sort);
  if (!driver) return { q: db.selectFrom('posts').where(where(db, f, ratingIndex)), viaTag: false };
  const q = db
    .selectFrom('post_tags as d')
    .innerJoin('posts', 'posts.id', 'd.post_id')
    .where('d.tag_id', '=', driver.id)
    .where(where(db, f, ratingIndex, driver.id) as never);
  return { q: q as unknown as ReturnType<typeof db.selectFrom<'posts'>>, viaTag: true };
}

/**
 * Whether the filter is tags alone in date order, answered from links: one tag on either engine
 * (its links, in the index's order), several on SQLite, where the driving tag's links are read in
 * its index's order and the other tags looked up by link (hasOtherTags), so no post row is read
 * but the page's. PostgreSQL reads the rows of several tags and tests their tag string instead:
 * there a lookup by link costs tens of times what it costs SQLite, and its planner merge-joins two
 * big tags' whole link lists.
 */
function tagsAlone(db: Database, f: PostFilter, sort: Sort): boolean {
  const fromLinks = db.linkLookupsAreCheap ? f.tags.length >= 1 : f.tags.length === 1;
  return fromLinks && usesOnly(f, 'tags') && (sort === 'newest' || sort === 'oldest');
}

/**
 * The driving link's post (`link`: the alias of a post_tags row or of a set of its columns) has every
 * other tag. Each is a seek in the (tag_id, created_at, post_id) index, where that tag's links of
 * the same days lie together and stay cached (a link carries its post's date), about four times
 * cheaper than a probe of post_tags' key at a million posts.
 */
function hasOtherTags(db: Database, f: PostFilter, driverId: number, link: 'd' | 'w') {
  const created = sql.ref(`${link}.created_at`);
  const post = sql.ref(`${link}.post_id`);
  // Without statistics SQLite would rather use the key (post_id, tag_id), whose pages are scattered.
  const linkPost = db.notIndexed(sql.ref('t.post_id'));
  return sql.join(
    f.tags
      .filter((t) => t.id !== driverId)
      .map((t) => sql`EXISTS (SELECT 1 FROM post_tags t WHERE t.tag_id = ${t.id} AND t.created_at = ${created} AND ${linkPost} = ${post})`),
    sql` AND `,
  );
}

export async function listRows(db: Database, f: PostFilter, sort: Sort, offset: number, limit: number): Promise<Items> {
  // Past the first page, or through links alone, find the page's ids first: the skipped rows are
  // then stepped over in an index (and read only as far as the filter needs), not copied out.
  if (offset > 0 || tagsAlone(db, f, sort)) return itemsByIds(db, await pageIds(db, f, sort, offset, limit));
  const { q, viaTag } = source(db, f, sort);
  return itemsOf(await ordered(q.select(LIST_COLUMNS), sort, viaTag).limit(limit).execute());
}

function ordered<Q extends { orderBy(ref: never, dir: 'asc' | 'desc'): Q }>(q: Q, sort: Sort, viaTag: boolean): Q {
  for (const [col, dir] of ORDER[sort]) {
    // Through a tag, order by the link's own copy of the date so the (tag_id, created_at, post_id) index serves it.
    const ref = viaTag && col === 'created_at' ? 'd.created_at' : viaTag && col === 'id' ? 'd.post_id' : `posts.${col}`;
    q = q.orderBy(sql.ref(ref) as never, dir);
  }
  return q;
}

/** A page of one tag's links in date order, as one text of post ids (joinedText). */
const tagPage = (dir: 'asc' | 'desc') =>
  preparedOnDatabase((db, p: { tagId: number; limit: number; offset: number }) => {
    const order = sql.raw(`created_at ${dir}, post_id ${dir}`);
    const links = sql`SELECT post_id, created_at FROM post_tags WHERE tag_id = ${p.tagId} ORDER BY ${order} LIMIT ${p.limit} OFFSET ${p.offset}`;
    return sql<{ ids: string | null }>`SELECT ${db.joinedText(sql.ref('post_id'), order)} AS ids FROM (${links}) l`;
  });
const tagPageNewest = tagPage('desc');
const tagPageOldest = tagPage('asc');

async function pageIds(db: Database, f: PostFilter, sort: Sort, offset: number, limit: number): Promise<number[]> {
  const driver = drivingTag(f, sort);
  if (driver && tagsAlone(db, f, sort) && f.tags.length === 1) {
    // One tag: its links alone, in the index's order.
    const [row] = await (sort === 'newest' ? tagPageNewest : tagPageOldest)(db, { tagId: driver.id, limit, offset });
    return idList(row);
  }
  if (driver && tagsAlone(db, f, sort)) {
    // Several: the driving tag's links, each looked up among the others' (SQLite only: tagsAlone).
    const dir = sort === 'newest' ? 'desc' : 'asc';
    const rows = await db
      .selectFrom('post_tags as d')
      .select('d.post_id')
      .where('d.tag_id', '=', driver.id)
      .where(sql<SqlBool>`${hasOtherTags(db, f, driver.id, 'd')}`)
      .orderBy('d.created_at', dir)
      .orderBy('d.post_id', dir)
      .limit(limit)
      .offset(offset)
      .execute();
    return rows.map((r) => r.post_id);
  }
  const { q, viaTag } = source(db, f, sort);
  const rows = await ordered(q.select('posts.id'), sort, viaTag).limit(limit).offset(offset).execute();
  return rows.map((r) => r.id);
}

/**
 * The matching posts among the driving tag's newest `size` posts, newest first, and the total
 * estimated from their share (null when no tag drives the query or it has no more posts than
 * that). A newest-first page within the window is then a slice of it, read with the estimate.
 */
export async function tagWindow(db: Database, f: PostFilter, size = TAG_SAMPLE): Promise<{ ids: number[]; total: number } | null> {
  const driver = drivingTag(f, 'newest');
  // One tag alone has its stored count and its own index order: nothing to sample.
  const oneTagAlone = usesOnly(f, 'tags') && f.tags.length === 1;
  if (!driver || oneTagAlone || driver.count <= size || f.before) return null;
  const newest = db
    .selectFrom('post_tags as d')
    .select(['d.post_id', 'd.created_at'])
    .where('d.tag_id', '=', driver.id)
    .orderBy('d.created_at', 'desc')
    .orderBy('d.post_id', 'desc')
    .limit(size);
  if (tagsAlone(db, f, 'newest')) {
    // Tags alone: the sample's links only, no post row read.
    const links = await db
      .selectFrom(newest.as('w'))
      .select('w.post_id')
      .where(sql<SqlBool>`${hasOtherTags(db, f, driver.id, 'w')}`)
      .orderBy('w.created_at', 'desc')
      .orderBy('w.post_id', 'desc')
      .execute();
    return { ids: links.map((r) => r.post_id), total: Math.round((links.length / size) * driver.count) };
  }
  const rows = await db
    .selectFrom(newest.as('w'))
    .innerJoin('posts', 'posts.id', 'w.post_id')
    .select('posts.id')
    .where(where(db, f, false, driver.id) as never)
    .orderBy('w.created_at', 'desc')
    .orderBy('w.post_id', 'desc')
    .execute();
  return { ids: rows.map((r) => r.id), total: Math.round((rows.length / size) * driver.count) };
}

/** Whether the filter's total is a stored counter or the in-memory dates (all posts, one rating, one tag, a date range, a rating and min likes). */
export function hasStoredCount(f: PostFilter): boolean {
  return usesOnly(f, 'rating') || (usesOnly(f, 'tags') && f.tags.length === 1) || usesOnly(f, 'from', 'to') || usesOnly(f, 'rating', 'minLikes');
}

const likedQuery = (rated: boolean) =>
  prepared((db, p: { likes: number; rating?: string }) => {
    const q = db.selectFrom('posts_by_likes').select(sql<number>`coalesce(sum(posts), 0)`.as('n')).where('like_count', '>=', p.likes);
    return rated ? q.where('content_rating', '=', p.rating!) : q;
  });
const liked = likedQuery(false);
const likedRated = likedQuery(true);

/** Posts (of a rating) with at least `likes` likes, exact: a sum over posts_by_likes, kept by triggers. */
async function likedAtLeast(db: Kysely<DB>, likes: number, rating?: Rating): Promise<number> {
  const [row] = rating ? await likedRated(db, { likes, rating }) : await liked(db, { likes });
  return Number(row?.n ?? 0);
}

/** Posts created between two dates (inclusive, either bound open): exact, and cheap. */
export type DateCounter = (from?: number, to?: number) => Promise<number>;

/**
 * The number of matching posts: from a stored counter when the filter is one (everything, one
 * rating, one tag, a rating and min likes), from `dates` when it is only a date range. Through a tag with more than
 * TAG_SAMPLE posts: the share of matches among its newest TAG_SAMPLE posts, scaled to the tag.
 * Otherwise counted exactly up to COUNT_CAP, and past that estimated from the share of matches
 * among the newest SAMPLE posts of the date range (all posts when there is none). Estimates say so.
 */
export async function countRows(db: Database, f: PostFilter, cap = COUNT_CAP, dates?: DateCounter): Promise<{ total: number; estimated: boolean }> {
  if (usesOnly(f, 'rating')) return { total: await counter(db, f.rating ? `posts:${f.rating}` : 'posts'), estimated: false };
  if (usesOnly(f, 'tags') && f.tags.length === 1) return { total: f.tags[0].count, estimated: false };
  if (f.minLikes !== undefined && usesOnly(f, 'rating', 'minLikes')) return { total: await likedAtLeast(db, f.minLikes, f.rating), estimated: false };
  if (dates && usesOnly(f, 'from', 'to')) return { total: await dates(f.from, f.to), estimated: false };

  // Through a tag with more posts than the sample, test its newest TAG_SAMPLE posts only and scale up.
  const window = await tagWindow(db, f, Math.min(TAG_SAMPLE, cap));
  if (window) return { total: window.total, estimated: true };
  const { q } = source(db, f, 'newest', f.minLikes !== undefined);
  const capped = await db
    .selectFrom(
      q
        .select('posts.id')
        .limit(cap + 1)
        .as('m'),
    )
    .select(sql<number>`count(*)`.as('n'))
    .executeTakeFirstOrThrow();
  const n = Number(capped.n);
  if (n <= cap) return { total: n, estimated: false };
  // The sample comes from the same date range as the filter, or a recent range would be scaled to all posts.
  let newest = db.selectFrom('posts').select('posts.id').orderBy('posts.created_at', 'desc').orderBy('posts.id', 'desc').limit(SAMPLE);
  if (f.from !== undefined) newest = newest.where('posts.created_at', '>=', f.from);
  if (f.to !== undefined) newest = newest.where('posts.created_at', '<=', f.to);
  const sample = await db
    .selectFrom('posts')
    .select(sql<number>`count(*)`.as('n'))
    .where('posts.id', 'in', newest)
    .where(where(db, f, false))
    .executeTakeFirstOrThrow();
  const base = f.from === undefined && f.to === undefined ? await counter(db, 'posts') : dates ? await dates(f.from, f.to) : n;
  const estimate = Math.round((Number(sample.n) / Math.min(SAMPLE, Math.max(base, 1))) * base);
  return { total: Math.max(estimate, cap + 1), estimated: true };
}
