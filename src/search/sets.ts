/**
 * The in-memory strategy: a query of sets alone (tags, wildcards, fav:, user:, pool:, with AND,
 * OR and NOT) evaluated over the tag sets a process keeps (bitmaps and id lists:
 * modules/posts/tag-sets.ts), in id order, which is the newest order while posts keep their
 * upload order. Every intermediate result is a bitmap over post ids: at a million posts 31,250
 * words, ANDed or ORed word by word; the page is read from the top (or bottom) word, skipping
 * whole words by their bit count, and the total is exact. Tags the process does not keep, and a
 * user's favorites or uploads and a pool's posts, are read by key for the query.
 */
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { DB } from '../db/types.ts';
import { type Database, OverBudget } from '../db/engine.ts';
import { coalescedReads } from '../db/coalesce.ts';
import type { Rating } from '../core/schemas.ts';
import type { Compiled, Expr, Interval, MediaKind, OrderKey } from './expr.ts';
import { ORDERS } from './expr.ts';
import {
  allOfNoneOf,
  below,
  type Descending,
  descending,
  eachId,
  emptySet,
  fromIds,
  has,
  markIds,
  memberDescending,
  memberOf,
  orInto,
  pageOf,
  type PostSet,
  Scratch,
  setRange,
  sizeOf,
  type Take,
  union,
  UNION_SCANNED,
  unionDescending,
  within,
} from './post-set.ts';
import type { SearchPage } from './sql.ts';
import { HEAD_POSTS, type KeptHeads, type KeptTotals, type Total } from './totals.ts';

/** The tag sets this strategy reads (TagSets). */
export interface KeptTags {
  current(db: Database, version?: number): Promise<unknown>;
  has(tagId: number): boolean;
  readonly bitmapWords: number;
  postsOf(tagId: number): { bits: Int32Array } | { ids: Int32Array };
  /** How many posts a kept tag holds at most (a bitmap: every id it can hold); without it, as postsOf says. */
  sizeOf?(tagId: number): number;
  /** Sets the bits of a kept tag's posts in a bitmap without listing them first; without it, from postsOf. */
  markInto?(tagId: number, bits: Int32Array): void;
  /** A kept tag's posts from the highest down, read as they are asked for; without it, from postsOf. */
  descendingOf?(tagId: number): Descending;
  /** Whether the tag is kept as a bitmap (a test is then a bit); without it, postsOf tells. */
  hasBitmap?(tagId: number): boolean;
  /** A listed tag's ids if they are kept decoded (a test is then a binary search), without decoding them. */
  decodedOf?(tagId: number): Int32Array | undefined;
}

/** Every post, newest first (NewestOrder). */
export interface AllPosts {
  /** Brings it up to date; whether newer posts always have higher ids. */
  refreshAt(db: Database, version?: number): Promise<boolean>;
  readonly newestId: number;
  allPosts(words: number): Int32Array;
  /** How many posts there are. */
  readonly size: number;
  /** A page of every post in date order (newest first: 'desc'). */
  page(dir: 'asc' | 'desc', offset: number, limit: number): number[];
  /** A page of the posts created in a range of times, in date order, and how many there are. */
  createdIn(r: Interval, dir: 'asc' | 'desc', offset: number, limit: number): { ids: number[]; total: number };
  /** The id range of the posts created in a range of times, while ids follow dates (null: none). */
  idsCreatedIn(r: Interval): [number, number] | null;
  /** Sets the bits of the posts created in a range of times (ids past the bitmap's end are left out). */
  markCreatedIn(r: Interval, bits: Int32Array): void;
  /**
   * Visits post ids in date order, newest first ('desc') or oldest first, until `visit` returns
   * false; newest first, it may start after a cursor (the posts older than it).
   */
  eachByDate(dir: 'asc' | 'desc', visit: (id: number) => boolean, after?: { created: number; id: number }): void;
}

export type CountField = 'likes' | 'favs' | 'comments';

/** The counts of every post, kept current with the data (PostNumbers). */
export interface KeptNumbers {
  /** Brings the counts up to date, for posts up to `newestId` at least; the counts' counter as read (they are at least that new). */
  current(db: Database, newestId: number): Promise<number>;
  /** A post's count (0 for a post it does not know). */
  column(field: CountField): (id: number) => number;
  /** The first posts in the order of a count (highest first, the higher id first among equals): a prefix of that order over every post. */
  leading(field: CountField): Int32Array;
  /**
   * A count of every post as an array by id (past its end: 0), for loops over many posts without
   * a call a post; where it holds `capped`, the count is at least that and column() gives it.
   */
  values(field: CountField): { array: Uint8Array | Int32Array; capped: number };
}

export interface SetIndexes {
  tags: KeptTags;
  /** The posts of each rating (keys: RATING_KEYS) and of each kind of media (KINDS_OF), kept like the tags. */
  ratings: KeptTags;
  kinds: KeptTags;
  /** The posts of each uploader (by user id), kept like the tags; without them, read by key. */
  uploaders?: KeptTags;
  /** The posts of each title word (by its id in title_vocab), kept like the tags; without them, read by key. */
  words?: KeptTags;
  posts: AllPosts;
  /** The posts' counts (likes, favs, comments), for the columns strategy. */
  numbers?: KeptNumbers;
  /** Totals the columns strategy worked out, kept while the data and counts stay as they were. */
  totals?: KeptTotals;
  /** The first pages of orders by a count the columns strategy ranked, and of queries this strategy evaluated whole, kept the same way. */
  heads?: KeptHeads;
  /** The data version as the request read it: the indexes need not read it again to know they are current. */
  version?: number;
}

/** The keys of the rating sets: a post's key is its rating's place here. */
export const RATING_KEYS: readonly Rating[] = ['safe', 'sketchy', 'unsafe'];
/** Which keys of the media-kind sets (0 still image, 1 video, 2 animated image) a `type:` value stands for. */
const KINDS_OF: Record<MediaKind, number[]> = { image: [0, 2], video: [1], gif: [2] };
/** A post's key in the rating and the kind sets, as SQL over posts. */
export const RATING_KEY = sql`(CASE content_rating WHEN 'safe' THEN 0 WHEN 'sketchy' THEN 1 ELSE 2 END)`;
export const KIND_KEY = sql`(CASE WHEN media_type = 'video' THEN 1 WHEN is_animated = 1 THEN 2 ELSE 0 END)`;

/** A kind of set read by key: a tag's posts, a user's favorites or uploads, a pool's, a rating's, a kind of media's. */
type SetKind = 'tags' | 'fav' | 'uploader' | 'pool' | 'rating' | 'kind' | 'word';

/**
 * Whether the expression is made of sets alone: tags, fav:, user:, pool:, ratings, kinds, title
 * words, id ranges, and date and age ranges (the posts of a range of times are a stretch of the
 * newest order); with AND, OR and NOT.
 */
export function setsAlone(e: Expr): boolean {
  switch (e.kind) {
    case 'all':
    case 'none':
    case 'tags':
    case 'fav':
    case 'uploader':
    case 'pool':
    case 'rating':
    case 'type':
      return true;
    case 'title':
      return e.words !== undefined;
    case 'num':
      return e.field === 'id' || e.field === 'created';
    case 'not':
      return setsAlone(e.expr);
    case 'and':
    case 'or':
      return e.exprs.every(setsAlone);
    default:
      return false;
  }
}

/** The orders the sets serve: by id (a bitmap's own), or by date (the same while ids follow dates, else the newest order walked). */
function direction(order: readonly OrderKey[]): { dir: 'asc' | 'desc'; byDate: boolean } | null {
  if (order === ORDERS.newest) return { dir: 'desc', byDate: true };
  if (order === ORDERS.oldest) return { dir: 'asc', byDate: true };
  if (order === ORDERS.id) return { dir: 'desc', byDate: false };
  if (order === ORDERS.id_asc) return { dir: 'asc', byDate: false };
  return null;
}

/** Whether this strategy can answer the query (before its indexes are read). */
export function setsServe(c: Compiled): boolean {
  return setsAlone(c.expr) && direction(c.order) !== null;
}

/** How many word operations the query takes over `words` words: one pass a node. */
export function setsCost(e: Expr, words: number): number {
  const nodes = (x: Expr): number =>
    x.kind === 'and' || x.kind === 'or' ? 1 + x.exprs.reduce((n, y) => n + nodes(y), 0) : x.kind === 'not' ? 1 + nodes(x.expr) : 1;
  return nodes(e) * words;
}

/** Posts read from the database for one query: sets the process does not keep, by kind and key. */
type Fetched = Map<string, number[]>;
const keyOf = (kind: SetKind, id: number) => `${kind}:${id}`;

/** Where each kind of set is read from: its table, the SQL of its key, and the column of its posts. */
const SOURCES: Record<SetKind, { from: RawBuilder<unknown>; key: RawBuilder<unknown>; post: string }> = {
  tags: { from: sql.table('post_tags'), key: sql.ref('tag_id'), post: 'post_id' },
  fav: { from: sql.table('favorites'), key: sql.ref('user_id'), post: 'post_id' },
  uploader: { from: sql.table('posts'), key: sql.ref('uploader_id'), post: 'id' },
  pool: { from: sql.table('pool_posts'), key: sql.ref('pool_id'), post: 'post_id' },
  rating: { from: sql.table('posts'), key: RATING_KEY, post: 'id' },
  kind: { from: sql.table('posts'), key: KIND_KEY, post: 'id' },
  word: { from: sql`title_words JOIN title_vocab ON title_vocab.word = title_words.word`, key: sql.ref('title_vocab.id'), post: 'title_words.post_id' },
};

/** The keys of the kept sets a rating or type leaf reads. */
const ratingKeys = (e: Extract<Expr, { kind: 'rating' }>) => e.values.map((v) => RATING_KEYS.indexOf(v));
const kindKeys = (e: Extract<Expr, { kind: 'type' }>) => [...new Set(e.values.flatMap((v) => KINDS_OF[v]))];

/** The sets of the leaves not kept in memory, each as one text of ids from its table's index. */
async function fetchSets(db: Database, e: Expr, indexes: SetIndexes): Promise<Fetched> {
  const wanted = new Map<SetKind, Set<number>>();
  const want = (kind: SetKind, id: number) => wanted.set(kind, (wanted.get(kind) ?? new Set()).add(id));
  const walk = (x: Expr): void => {
    if (x.kind === 'tags') for (const id of x.ids) if (!indexes.tags.has(id)) want('tags', id);
    // A rating or kind with no posts when the sets were read is not kept: its posts since are read here.
    if (x.kind === 'rating') for (const k of ratingKeys(x)) if (!indexes.ratings.has(k)) want('rating', k);
    if (x.kind === 'type') for (const k of kindKeys(x)) if (!indexes.kinds.has(k)) want('kind', k);
    if (x.kind === 'fav' || (x.kind === 'uploader' && !indexes.uploaders?.has(x.userId))) want(x.kind, x.userId);
    if (x.kind === 'pool') want('pool', x.poolId);
    if (x.kind === 'title') for (const id of x.words ?? []) if (!indexes.words?.has(id)) want('word', id);
    if (x.kind === 'not') walk(x.expr);
    if (x.kind === 'and' || x.kind === 'or') x.exprs.forEach(walk);
  };
  walk(e);
  const out: Fetched = new Map();
  for (const [kind, keys] of wanted) {
    const found = await SET_READS[kind](db, [...keys]);
    for (const k of keys) {
      const ids = found.get(k);
      if (ids) out.set(keyOf(kind, k), ids);
    }
  }
  return out;
}

/** The ids of each key's set, from its table's index; searches asked at once read theirs together (coalescedReads). */
const SET_READS = Object.fromEntries(
  Object.entries(SOURCES).map(([kind, { from, key, post }]) => [
    kind,
    coalescedReads(async (db, keys: number[]) => {
      const rows = await sql<{ k: number; ids: string | null }>`SELECT ${key} AS k, ${db.joinedText(sql.ref(post))} AS ids FROM ${from}
        WHERE ${db.oneOf(key, db.listParam(keys))} GROUP BY ${key}`.execute(db);
      return new Map(rows.rows.map((r) => [Number(r.k), r.ids ? r.ids.split(',').map(Number) : []]));
    }),
  ]),
) as Record<SetKind, (db: Kysely<DB>, keys: number[]) => Promise<Map<number, number[]>>>;

/** Brings every kept set up to the data version; whether ids follow dates. */
export async function current(db: Database, indexes: SetIndexes): Promise<boolean> {
  const { version } = indexes;
  const [follows] = await Promise.all([
    indexes.posts.refreshAt(db, version),
    indexes.tags.current(db, version),
    indexes.ratings.current(db, version),
    indexes.kinds.current(db, version),
    indexes.uploaders?.current(db, version),
    indexes.words?.current(db, version),
  ]);
  return follows;
}

/** An in-memory strategy: a page and total from the indexes, or null when it finds it cannot answer after all (SQL then does). */
export type SetStrategy = (db: Database, c: Compiled, offset: number, limit: number, indexes: SetIndexes, budgetMs: number) => Promise<SearchPage | null>;

/** A page and the exact total of a query of sets alone, in id or date order. */
export const setsSearch: SetStrategy = async (db, c, offset, limit, indexes, budgetMs) => {
  const how = direction(c.order);
  if (!how) return null;
  const follows = await current(db, indexes);
  const { posts, version } = indexes;
  // Every post: a slice of the newest order, counted by it.
  if (c.expr.kind === 'all' && !c.before && (how.byDate || follows)) return { ids: posts.page(how.dir, offset, limit), total: posts.size, estimated: false };
  // One range of dates, in date order: a stretch of the newest order.
  if (c.expr.kind === 'num' && c.expr.field === 'created' && c.expr.ranges.length === 1 && how.byDate && !c.before)
    return { ...posts.createdIn(c.expr.ranges[0], how.dir, offset, limit), estimated: false };
  const words = wordsOf(indexes);
  const stamp = version === undefined ? null : String(version);
  const kept = keptTotalsOf(indexes, c, c.expr, stamp);
  // Pages near the top of a query that had to be evaluated whole, kept from its first ask.
  const heads = c.before || offset + limit > HEAD_POSTS ? null : keptHeadsOf(indexes, c, c.expr, stamp);
  const head = heads?.page(offset, limit);
  if (head) return head;
  const known = kept.known();
  const scratch = new Scratch();
  try {
    const evaluator = new Evaluator(indexes, await fetchSets(db, c.expr, indexes), words, budgetMs, scratch.take, follows);
    // Asked again at the same data version, the total is known: a page near the top is found by
    // testing posts from there, as long as the matches are dense enough to be met soon. Asked for
    // the first time, a query driven by a small set walks all of it and counts what matches.
    if (follows || !how.byDate) {
      const walked = walkedPage(evaluator, c, how.dir, offset, limit, known?.total ?? null, posts.allPosts(words), posts.newestId);
      if (walked && known) return { ids: walked.ids, ...known };
      if (walked) return { ids: walked.ids, ...kept.remember(() => ({ total: walked.total, estimated: false })) };
    }
    const found = evaluator.eval(c.expr);
    if (how.byDate && !follows) {
      const page = datePage(posts, how.dir, offset, limit, (id) => has(found, id), c.before);
      return { ids: page.ids, total: c.before ? page.passed : sizeOfResult(found, version), estimated: false };
    }
    const result = c.before ? below(found, c.before.id, words, scratch.take) : found;
    const total = kept.remember(() => ({ total: sizeOfResult(result, version), estimated: false }));
    if (!heads) return { ids: pageOf(result, how.dir, offset, limit), ...total };
    const ids = pageOf(result, how.dir, 0, HEAD_POSTS);
    heads.keep(ids, total, HEAD_POSTS);
    return { ids: ids.slice(offset, offset + limit), ...total };
  } finally {
    scratch.release();
  }
};

/** A query's key in the kept totals and heads, made once a compiled query (both read it). */
const QUERY_KEYS = new WeakMap<Compiled, string>();
function queryKey(c: Compiled): string {
  let key = QUERY_KEYS.get(c);
  if (key === undefined) QUERY_KEYS.set(c, (key = JSON.stringify([c.expr, c.before ?? null])));
  return key;
}

/**
 * The totals kept of a query at `stamp` (the data version, and the counts' counter where counts
 * are in the query): none without a stamp, nor when `reads` has sets whose changes move no data
 * version (favorites, pools).
 */
export function keptTotalsOf(indexes: SetIndexes, c: Compiled, reads: Expr, stamp: string | null) {
  const totals = stamp !== null && !movesUnversioned(reads) ? indexes.totals : undefined;
  const key = queryKey(c);
  return {
    known: (): Total | undefined => totals?.peek(key, stamp!),
    remember: (work: () => Total): Total => (totals ? totals.of(key, stamp!, work) : work()),
  };
}

/**
 * The first pages kept of a query in its order (KeptHeads), under keptTotalsOf's rule: `page`
 * gives the posts `offset` to `offset + limit` and the total when the kept ones reach them;
 * `keep` keeps the first of `want` posts asked (fewer: every match).
 */
export function keptHeadsOf(indexes: SetIndexes, c: Compiled, reads: Expr, stamp: string | null) {
  const heads = stamp !== null && !movesUnversioned(reads) ? indexes.heads : undefined;
  const key = `${queryKey(c)}${JSON.stringify(c.order)}`;
  return {
    page(offset: number, limit: number): SearchPage | undefined {
      const kept = heads?.peek(key, stamp!);
      if (!kept || (!kept.complete && kept.ids.length < offset + limit)) return undefined;
      return { ids: kept.ids.slice(offset, offset + limit), total: kept.total, estimated: kept.estimated };
    },
    keep(ids: number[], total: Total, want: number): void {
      heads?.keep(key, stamp!, { ids, total: total.total, estimated: total.estimated, complete: ids.length < want });
    },
  };
}

/** Whether the expression reads sets whose changes move no data version (favorites, pools). */
function movesUnversioned(e: Expr): boolean {
  if (e.kind === 'fav' || e.kind === 'pool' || e.kind === 'pooled') return true;
  if (e.kind === 'not') return movesUnversioned(e.expr);
  return (e.kind === 'and' || e.kind === 'or') && e.exprs.some(movesUnversioned);
}

/** Membership tests a page found post by post may take at most; past it, the query is evaluated whole. */
const WALK_AT_MOST = 20_000;

/** Membership tests a post costs against `e` at most: one a set (a wildcard is as many as its tags). */
function testsOf(e: Expr): number {
  switch (e.kind) {
    case 'and':
    case 'or':
      return e.exprs.reduce((n, x) => n + testsOf(x), 0);
    case 'not':
      return testsOf(e.expr);
    case 'tags':
      return e.ids.length;
    case 'title':
      return e.words?.length ?? 1;
    default:
      return 1;
  }
}

/**
 * A page in id order found by testing posts one by one from the top (or bottom), and how many
 * matched. With the total known: when `total` matches make the page likely within WALK_AT_MOST
 * tests, stopping once it is full; null when not, or when the walk runs out of tests first. With
 * no total (null): when the driver is small enough to be walked whole within them, counting every
 * match (the total); else null. The posts walked are those of the smallest set listed by id the
 * query ANDs (its driver: every match is one of them), else every post.
 */
function walkedPage(
  evaluator: Evaluator,
  c: Compiled,
  dir: 'asc' | 'desc',
  offset: number,
  limit: number,
  total: number | null,
  exists: Int32Array,
  newestId: number,
): { ids: number[]; total: number } | null {
  const counting = total === null;
  let driver = evaluator.driver(c.expr);
  const [low, high] = evaluator.bounds(c.expr, newestId);
  // A range of ids or dates the query ANDs is walked whole when that costs less than the driver:
  // a driver is read from its top, through every post of it above the range.
  const tests = testsOf(c.expr);
  if (driver && !counting && (high - low + 1) * tests < driver.size * driver.cost) driver = null;
  // What a post walked costs: the tests of the rest of the query, and the merge of a driving union.
  const most = Math.floor(WALK_AT_MOST / (driver ? driver.cost : tests));
  const walked = driver ? driver.size : high - low + 1;
  if (counting ? !driver || walked > most : total === 0 || (Math.min(offset + limit, total) / total) * walked * 2 > most) return null;
  // Every post the driver walks is in it: only the rest of the query is tested.
  const test = evaluator.tester(driver ? without(c.expr, driver.part) : c.expr, dir === 'desc');
  const ids: number[] = [];
  let skip = offset;
  let found = 0;
  const top = Math.min(high, c.before ? c.before.id - 1 : Infinity);
  const take = (id: number) => {
    if (id > top || (exists[id >>> 5] & (1 << (id & 31))) === 0 || !test(id)) return true;
    found++;
    if (skip > 0) skip--;
    else if (ids.length < limit) ids.push(id);
    return counting || ids.length < limit;
  };
  let tested = 0;
  if (driver && dir === 'desc') {
    const walk = driver.descending();
    for (let id = walk.next(); id >= 0; id = walk.next()) {
      if (++tested > most) return null;
      if (!take(id)) break;
    }
    return { ids, total: found };
  }
  if (driver) {
    let over = false;
    eachId(driver.set(), 'asc', (id) => {
      over = ++tested > most;
      return !over && take(id);
    });
    return over ? null : { ids, total: found };
  }
  for (let id = dir === 'desc' ? top : low; id >= low && id <= top; id += dir === 'desc' ? -1 : 1) {
    if (++tested > most) return null;
    if (!take(id)) break;
  }
  return { ids, total: found };
}

/** `e` without one of the parts it ANDs (everything, when `e` is that part). */
function without(e: Expr, part: Expr): Expr {
  if (e === part) return { kind: 'all' };
  if (e.kind !== 'and') return e;
  const rest = e.exprs.filter((x) => x !== part);
  return rest.length === 1 ? rest[0] : { kind: 'and', exprs: rest };
}

/**
 * A page in date order when ids do not follow dates: the newest order walked, each post tested.
 * After a cursor the walk goes on to the end, counting the posts that pass (`passed`).
 */
export function datePage(
  posts: AllPosts,
  dir: 'asc' | 'desc',
  offset: number,
  limit: number,
  test: (id: number) => boolean,
  before?: { created: number; id: number },
): { ids: number[]; passed: number } {
  const ids: number[] = [];
  let skip = offset;
  let passed = 0;
  posts.eachByDate(
    dir,
    (id) => {
      if (!test(id)) return true;
      passed++;
      if (skip > 0) skip--;
      else if (ids.length < limit) ids.push(id);
      return ids.length < limit || before !== undefined;
    },
    before,
  );
  return { ids, passed };
}

/**
 * The bitmaps the indexes keep, as handed to a search (never one a search made): a query of one
 * set has one as its answer, and its size holds until the data version moves, when kept sets change.
 */
const KEPT = new WeakSet<Int32Array>();
const keptSizes = new WeakMap<Int32Array, { version: number; size: number }>();

/** The size of a search's answer; a kept bitmap's is counted once a data version. */
export function sizeOfResult(s: PostSet, version?: number): number {
  if (!('bits' in s) || version === undefined || !KEPT.has(s.bits)) return sizeOf(s);
  const known = keptSizes.get(s.bits);
  if (known?.version === version) return known.size;
  const size = sizeOf(s);
  keptSizes.set(s.bits, { version, size });
  return size;
}

/** Bitmap words that hold every post id the indexes know. */
const wordsOf = (indexes: SetIndexes) => Math.max(indexes.tags.bitmapWords, (indexes.posts.newestId >>> 5) + 1);

/** The posts of an expression of sets alone; the bitmaps it makes come from `take` (a search's Scratch). */
export async function evaluateSets(db: Database, e: Expr, indexes: SetIndexes, budgetMs: number, take: Take, follows: boolean): Promise<PostSet> {
  const fetched = await fetchSets(db, e, indexes);
  return new Evaluator(indexes, fetched, wordsOf(indexes), budgetMs, take, follows).eval(e);
}

/** Evaluates an expression of sets alone into a PostSet (post-set.ts), node by node; kept bitmaps are used as they are. */
class Evaluator {
  private readonly until: number;

  constructor(
    private readonly indexes: SetIndexes,
    private readonly fetched: Fetched,
    private readonly words: number,
    private readonly budgetMs: number,
    private readonly take: Take,
    /** Whether ids follow dates (date ranges are then id ranges). */
    private readonly follows: boolean,
  ) {
    this.until = Date.now() + budgetMs;
  }

  /** The posts of `e`. A bitmap may be shared with the indexes: read it, never write it. */
  eval(e: Expr): PostSet {
    if (Date.now() > this.until) throw new OverBudget(this.budgetMs);
    switch (e.kind) {
      case 'all':
        return this.keep({ bits: this.indexes.posts.allPosts(this.words) });
      case 'none':
        return emptySet();
      case 'tags':
      case 'rating':
      case 'type':
      case 'title':
        return this.marked(this.keysOf(e)) ?? union(this.parts(e), this.words, this.take);
      case 'uploader':
        return this.kept('uploader', this.indexes.uploaders, e.userId);
      case 'fav':
        return fromIds(this.fetched.get(keyOf(e.kind, e.userId)) ?? []);
      case 'pool':
        return fromIds(this.fetched.get(keyOf('pool', e.poolId)) ?? []);
      case 'num':
        return this.idRanges(e);
      case 'not':
        return allOfNoneOf([{ bits: this.indexes.posts.allPosts(this.words) }], [this.eval(e.expr)], this.words, this.take);
      case 'or':
        return union(
          e.exprs.map((x) => this.eval(x)),
          this.words,
          this.take,
        );
      case 'and': {
        // A AND NOT B is A without B: the complement of B is never made.
        const plain = e.exprs.filter((x) => x.kind !== 'not');
        // Id and date ranges narrow what the other parts give, by their bounds: no bitmap of a range is made.
        const spans = plain.map((x) => (x.kind === 'num' ? this.spansOf(x) : null));
        const plus = plain.filter((_, i) => spans[i] === null).map((x) => this.eval(x));
        const minus = e.exprs.flatMap((x) => (x.kind === 'not' ? [this.eval(x.expr)] : []));
        let base = allOfNoneOf(plus.length ? plus : [{ bits: this.indexes.posts.allPosts(this.words) }], minus, this.words, this.take);
        for (const span of spans) if (span) base = within(base, span, this.words, this.take);
        return base;
      }
      default:
        return badLeaf(e);
    }
  }

  /** The kept sets a leaf is the union of: a tag or a wildcard's tags, ratings, kinds of media, a title's words. */
  private keysOf(e: Extract<Expr, { kind: 'tags' | 'rating' | 'type' | 'title' }>): KeptKey[] {
    const { tags, ratings, kinds, words } = this.indexes;
    switch (e.kind) {
      case 'tags':
        return e.ids.map((key) => ({ kind: 'tags', sets: tags, key }));
      case 'rating':
        return ratingKeys(e).map((key) => ({ kind: 'rating', sets: ratings, key }));
      case 'type':
        return kindKeys(e).map((key) => ({ kind: 'kind', sets: kinds, key }));
      case 'title':
        return (e.words ?? badLeaf(e)).map((key) => ({ kind: 'word', sets: words, key }));
    }
  }

  private parts(e: Extract<Expr, { kind: 'tags' | 'rating' | 'type' | 'title' }>): PostSet[] {
    return this.keysOf(e).map((k) => this.kept(k.kind, k.sets, k.key));
  }

  /**
   * The union of several sets as a bitmap, each set's bits set straight from how it is kept (a
   * wildcard's hundred tags are never decoded into lists of their own); null when the union is
   * sparse (no more posts than words), where merging the lists costs less than a bitmap.
   */
  private marked(keys: KeptKey[]): PostSet | null {
    if (keys.length < 2) return null;
    let most = 0;
    for (const { kind, sets, key } of keys) {
      const fetched = this.fetched.get(keyOf(kind, key));
      if (fetched) most += fetched.length;
      else if (sets?.has(key)) most += sets.sizeOf ? sets.sizeOf(key) : sizeHint(sets.postsOf(key));
    }
    if (most <= this.words) return null;
    const out = this.take(this.words);
    for (const { kind, sets, key } of keys) {
      const fetched = this.fetched.get(keyOf(kind, key));
      if (fetched) markIds(fetched, out);
      else if (sets?.has(key)) {
        if (sets.markInto) sets.markInto(key, out);
        else orInto(sets.postsOf(key), out);
      }
    }
    return { bits: out };
  }

  /** The lowest and highest ids `e` can hold: the id and date ranges it ANDs narrow them from every post's. */
  bounds(e: Expr, newestId: number): [number, number] {
    let low = 0;
    let high = newestId;
    for (const x of e.kind === 'and' ? e.exprs : [e]) {
      const spans = x.kind === 'num' ? this.spansOf(x) : null;
      if (!spans) continue;
      low = Math.max(low, Math.min(...spans.map((r) => r[0])));
      high = Math.min(high, Math.max(...spans.map((r) => r[1])));
    }
    return [low, high];
  }

  /**
   * The smallest set that `e` ANDs and that is read by key: a tag, a title word, an uploader,
   * favorites, a pool, or a union of a few such (a title's words, `a or b`, a wildcard's few
   * tags), bitmaps among them (a wildcard whose tags include a common one then drives a walk
   * instead of being made whole each time). Which part it is, how many posts it holds at most,
   * and its ids highest first, whole or read as they are walked.
   */
  driver(e: Expr): Driver | null {
    let best: Driver | null = null;
    for (const x of e.kind === 'and' ? e.exprs : [e]) {
      const keys = listedKeys(x, this.indexes);
      if (!keys || keys.length > DRIVER_PARTS) continue;
      const size = keys.reduce((n, k) => n + this.sizeOfKey(k), 0);
      // The cheapest walk, not the smallest set: a tag driving `many* tag` would test each post against the wildcard's every tag.
      const cost = testsOf(without(e, x)) + mergeCost(keys.length);
      if (best && size * cost >= best.size * best.cost) continue;
      best = {
        part: x,
        size,
        cost,
        set: () =>
          union(
            keys.map((k) => this.kept(k.kind, k.sets, k.key)),
            this.words,
            this.take,
          ),
        descending: () => unionDescending(keys.map((k) => this.streamOf(k))),
      };
    }
    return best;
  }

  /**
   * A test of whether a post that exists is in `e`, one post at a time: kept sets are tested as
   * they are (a bit, or a search in ids), unions part by part, id and (while ids follow dates)
   * date ranges by their bounds; nothing is evaluated whole but what is read by key.
   */
  tester(e: Expr, desc = false): (id: number) => boolean {
    switch (e.kind) {
      case 'all':
        return () => true;
      case 'none':
        return () => false;
      case 'tags':
      case 'rating':
      case 'type':
      case 'title': {
        // The biggest first: most posts that are in the union are found by the first test.
        const parts = this.keysOf(e)
          .map((k) => ({ k, size: this.sizeOfKey(k) }))
          .sort((x, y) => y.size - x.size)
          .map(({ k }) => this.memberTest(k, desc));
        return parts.length === 1 ? parts[0] : anyOf(parts);
      }
      case 'num': {
        const spans = this.spansOf(e);
        if (!spans) break;
        const lows = spans.map((r) => r[0]);
        const highs = spans.map((r) => r[1]);
        return (id) => {
          for (let i = 0; i < lows.length; i++) if (id >= lows[i] && id <= highs[i]) return true;
          return false;
        };
      }
      case 'not': {
        const inner = this.tester(e.expr, desc);
        return (id) => !inner(id);
      }
      case 'and': {
        const all = e.exprs.map((x) => this.tester(x, desc));
        return (id) => {
          for (let i = 0; i < all.length; i++) if (!all[i](id)) return false;
          return true;
        };
      }
      case 'or':
        return anyOf(e.exprs.map((x) => this.tester(x, desc)));
    }
    return memberOf(this.eval(e));
  }

  /**
   * A test of membership in a kept set: a bit, a search in its ids where they are at hand
   * (decoded, or read for the query), or, in a walk from the top (`desc`: ids asked in descending
   * order), its list read down to each one asked; else a search in its ids, decoded.
   */
  private memberTest(k: KeptKey, desc: boolean): (id: number) => boolean {
    const streamed = desc && !this.isBitmap(k) && !this.fetched.has(keyOf(k.kind, k.key)) && !k.sets?.decodedOf?.(k.key);
    return streamed ? memberDescending(this.streamOf(k)) : memberOf(this.kept(k.kind, k.sets, k.key));
  }

  /** A kept set's ids from the highest down: read as they are asked for where it is kept as a list, else from the set as it is. */
  private streamOf(k: KeptKey): Descending {
    const listed = k.sets?.descendingOf && !this.fetched.has(keyOf(k.kind, k.key)) && k.sets.has(k.key);
    return listed ? k.sets!.descendingOf!(k.key) : descending(this.kept(k.kind, k.sets, k.key));
  }

  /** Whether a set is kept as a bitmap (one read for the query never is). */
  private isBitmap(k: KeptKey): boolean {
    if (this.fetched.has(keyOf(k.kind, k.key)) || !k.sets?.has(k.key)) return false;
    return k.sets.hasBitmap ? k.sets.hasBitmap(k.key) : 'bits' in k.sets.postsOf(k.key);
  }

  /** How many posts a kept set holds at most (read for the query: how many were read). */
  private sizeOfKey(k: KeptKey): number {
    const fetched = this.fetched.get(keyOf(k.kind, k.key));
    if (fetched) return fetched.length;
    if (!k.sets?.has(k.key)) return 0;
    // A bitmap's own posts (counted once a data version), not every id it can hold: walks are priced by them.
    if (this.isBitmap(k)) return sizeOfResult(this.kept(k.kind, k.sets, k.key), this.indexes.version);
    return k.sets.sizeOf ? k.sets.sizeOf(k.key) : sizeHint(k.sets.postsOf(k.key));
  }

  /** The id spans of an id range, or of a date range while ids follow dates; null for anything else. */
  private spansOf(e: Extract<Expr, { kind: 'num' }>): [number, number][] | null {
    if (e.field === 'id') return e.ranges.map(idSpan);
    if (e.field !== 'created' || !this.follows) return null;
    return e.ranges.map((r) => this.indexes.posts.idsCreatedIn(r)).filter((x): x is [number, number] => x !== null);
  }

  /** A kept set as it is kept (a bitmap, or ids already highest first), or as read for the query (none kept: `sets` undefined). */
  private kept(kind: SetKind, sets: KeptTags | undefined, key: number): PostSet {
    const fetched = this.fetched.get(keyOf(kind, key));
    if (fetched || !sets?.has(key)) return fromIds(fetched ?? []);
    return this.keep(sets.postsOf(key));
  }

  private keep(s: PostSet): PostSet {
    if ('bits' in s) KEPT.add(s.bits);
    return s;
  }

  /** The posts of an id range, or of a date range. */
  private idRanges(e: Extract<Expr, { kind: 'num' }>): PostSet {
    const out = this.take(this.words);
    for (const r of e.ranges) {
      if (e.field === 'created') this.indexes.posts.markCreatedIn(r, out);
      else if (e.field === 'id') {
        const [lo, hi] = idSpan(r);
        setRange(out, Math.max(0, lo), Math.min(this.words * 32 - 1, hi));
      } else badLeaf(e);
    }
    // Ids and dates name posts that may be gone: only the ones that exist.
    const all = this.indexes.posts.allPosts(this.words);
    for (let w = 0; w < out.length; w++) out[w] &= all[w];
    return { bits: out };
  }
}

/** A kept set a leaf reads: its kind, where it is kept (if anywhere), and its key. */
type KeptKey = { kind: SetKind; sets: KeptTags | undefined; key: number };

/** The set a walk goes through (walkedPage): every match of the query is one of its posts. */
interface Driver {
  part: Expr;
  size: number;
  /** What a post walked through it costs, in membership tests: the rest of the query's, and the merge of its parts. */
  cost: number;
  /** Its posts. */
  set(): PostSet;
  /** Its ids, highest first, read as they are walked. */
  descending(): Descending;
}

/** Sets a driver may be the union of (a wildcard's tags, up to its cap), merged as they are walked (unionDescending). */
const DRIVER_PARTS = 128;

/** What merging a union of `parts` sets costs a post walked, in membership tests: a comparison a part, or a heap's two a level. */
function mergeCost(parts: number): number {
  if (parts <= 1) return 0;
  return parts <= UNION_SCANNED ? parts / 8 : Math.log2(parts) / 2;
}

/** The sets listed by id a leaf, or an OR of such leaves, is the union of: tags, title words, an uploader, favorites, a pool. */
function listedKeys(x: Expr, indexes: SetIndexes): KeptKey[] | null {
  switch (x.kind) {
    case 'tags':
      return x.ids.map((key) => ({ kind: 'tags', sets: indexes.tags, key }));
    case 'title':
      return x.words ? x.words.map((key) => ({ kind: 'word', sets: indexes.words, key })) : null;
    case 'uploader':
      return [{ kind: 'uploader', sets: indexes.uploaders, key: x.userId }];
    case 'fav':
      return [{ kind: 'fav', sets: undefined, key: x.userId }];
    case 'pool':
      return [{ kind: 'pool', sets: undefined, key: x.poolId }];
    case 'or': {
      const keys: KeptKey[] = [];
      for (const part of x.exprs) {
        const more = listedKeys(part, indexes);
        if (!more) return null;
        keys.push(...more);
      }
      return keys;
    }
    default:
      return null;
  }
}

/** A test that passes when any of `tests` does, in their order. */
function anyOf(tests: ((id: number) => boolean)[]): (id: number) => boolean {
  return (id) => {
    for (let i = 0; i < tests.length; i++) if (tests[i](id)) return true;
    return false;
  };
}

/** How big a set is, roughly: a bitmap counts as holding a post in 16 (BITMAP_AT of tag-sets.ts). */
const sizeHint = (s: PostSet) => ('ids' in s ? s.ids.length : s.bits.length * 2);

/** The ids of an id range, both ends included. */
const idSpan = (r: Interval): [number, number] => [Math.ceil(r.loOpen ? r.lo + 1 : r.lo), Math.floor(r.hiOpen ? r.hi - 1 : r.hi)];

function badLeaf(e: Expr): never {
  throw new Error(`the set strategy cannot evaluate ${e.kind}`);
}
