/**
 * The in-memory strategy: a query of sets alone (tags, wildcards, fav:, user:, pool:, with AND,
 * OR and NOT) evaluated over the tag sets a process keeps (bitmaps and id lists:
 * modules/posts/tag-sets.ts), in id order, which is the newest order while posts keep their
 * upload order. Every intermediate result is a bitmap over post ids: at a million posts 31,250
 * words, ANDed or ORed word by word; the page is read from the top (or bottom) word, skipping
 * whole words by their bit count, and the total is exact. Tags the process does not keep, and a
 * user's favorites or uploads and a pool's posts, are read by key for the query.
 */
import { type RawBuilder, sql } from 'kysely';
import { type Database, OverBudget } from '../db/engine.ts';
import type { Rating } from '../core/schemas.ts';
import type { Compiled, Expr, Interval, MediaKind, OrderKey } from './expr.ts';
import { ORDERS } from './expr.ts';
import { allOfNoneOf, below, emptySet, fromIds, has, pageOf, type PostSet, Scratch, setRange, sizeOf, type Take, union } from './post-set.ts';
import type { SearchPage } from './sql.ts';

/** The tag sets this strategy reads (TagSets). */
export interface KeptTags {
  current(db: Database, version?: number): Promise<unknown>;
  has(tagId: number): boolean;
  readonly bitmapWords: number;
  postsOf(tagId: number): { bits: Int32Array } | { ids: Int32Array };
}

/** Every post, newest first (NewestOrder). */
export interface AllPosts {
  /** Brings it up to date; whether newer posts always have higher ids. */
  refreshAt(db: Database, version?: number): Promise<boolean>;
  readonly newestId: number;
  allPosts(words: number): Int32Array;
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
  /** Brings the counts up to date, for posts up to `newestId` at least. */
  current(db: Database, newestId: number): Promise<void>;
  /** A post's count (0 for a post it does not know). */
  column(field: CountField): (id: number) => number;
  /** The first posts in the order of a count (highest first, the higher id first among equals): a prefix of that order over every post. */
  leading(field: CountField): Int32Array;
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
    const { from, key, post } = SOURCES[kind];
    const rows = await sql<{ k: number; ids: string | null }>`SELECT ${key} AS k, ${db.joinedText(sql.ref(post))} AS ids FROM ${from}
      WHERE ${db.oneOf(key, db.listParam([...keys]))} GROUP BY ${key}`.execute(db);
    for (const r of rows.rows) out.set(keyOf(kind, Number(r.k)), r.ids ? r.ids.split(',').map(Number) : []);
  }
  return out;
}

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
  const words = wordsOf(indexes);
  const scratch = new Scratch();
  try {
    const found = await evaluateSets(db, c.expr, indexes, budgetMs, scratch.take);
    if (how.byDate && !follows) {
      const page = datePage(indexes.posts, how.dir, offset, limit, (id) => has(found, id), c.before);
      return { ids: page.ids, total: c.before ? page.passed : sizeOf(found), estimated: false };
    }
    const result = c.before ? below(found, c.before.id, words, scratch.take) : found;
    return { ids: pageOf(result, how.dir, offset, limit), total: sizeOf(result), estimated: false };
  } finally {
    scratch.release();
  }
};

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

/** Bitmap words that hold every post id the indexes know. */
const wordsOf = (indexes: SetIndexes) => Math.max(indexes.tags.bitmapWords, (indexes.posts.newestId >>> 5) + 1);

/** The posts of an expression of sets alone; the bitmaps it makes come from `take` (a search's Scratch). */
export async function evaluateSets(db: Database, e: Expr, indexes: SetIndexes, budgetMs: number, take: Take): Promise<PostSet> {
  const fetched = await fetchSets(db, e, indexes);
  return new Evaluator(indexes, fetched, wordsOf(indexes), budgetMs, take).eval(e);
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
  ) {
    this.until = Date.now() + budgetMs;
  }

  /** The posts of `e`. A bitmap may be shared with the indexes: read it, never write it. */
  eval(e: Expr): PostSet {
    if (Date.now() > this.until) throw new OverBudget(this.budgetMs);
    switch (e.kind) {
      case 'all':
        return { bits: this.indexes.posts.allPosts(this.words) };
      case 'none':
        return emptySet();
      case 'tags':
        return e.ids.length === 1
          ? this.tag(e.ids[0])
          : union(
              e.ids.map((id) => this.tag(id)),
              this.words,
              this.take,
            );
      case 'uploader':
        return this.kept('uploader', this.indexes.uploaders, e.userId);
      case 'fav':
        return fromIds(this.fetched.get(keyOf(e.kind, e.userId)) ?? []);
      case 'pool':
        return fromIds(this.fetched.get(keyOf('pool', e.poolId)) ?? []);
      case 'rating':
        return union(
          ratingKeys(e).map((k) => this.kept('rating', this.indexes.ratings, k)),
          this.words,
          this.take,
        );
      case 'type':
        return union(
          kindKeys(e).map((k) => this.kept('kind', this.indexes.kinds, k)),
          this.words,
          this.take,
        );
      case 'title':
        return union(
          (e.words ?? badLeaf(e)).map((id) => this.kept('word', this.indexes.words, id)),
          this.words,
          this.take,
        );
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
        const plus = e.exprs.filter((x) => x.kind !== 'not').map((x) => this.eval(x));
        const minus = e.exprs.flatMap((x) => (x.kind === 'not' ? [this.eval(x.expr)] : []));
        return allOfNoneOf(plus.length ? plus : [{ bits: this.indexes.posts.allPosts(this.words) }], minus, this.words, this.take);
      }
      default:
        return badLeaf(e);
    }
  }

  private tag(id: number): PostSet {
    return this.kept('tags', this.indexes.tags, id);
  }

  /** A kept set as it is kept (a bitmap, or ids already highest first), or as read for the query (none kept: `sets` undefined). */
  private kept(kind: SetKind, sets: KeptTags | undefined, key: number): PostSet {
    const fetched = this.fetched.get(keyOf(kind, key));
    if (fetched || !sets?.has(key)) return fromIds(fetched ?? []);
    return sets.postsOf(key);
  }

  /** The posts of an id range, or of a date range. */
  private idRanges(e: Extract<Expr, { kind: 'num' }>): PostSet {
    const out = this.take(this.words);
    for (const r of e.ranges) {
      if (e.field === 'created') this.indexes.posts.markCreatedIn(r, out);
      else if (e.field === 'id')
        setRange(out, Math.max(0, Math.ceil(r.loOpen ? r.lo + 1 : r.lo)), Math.min(this.words * 32 - 1, Math.floor(r.hiOpen ? r.hi - 1 : r.hi)));
      else badLeaf(e);
    }
    // Ids and dates name posts that may be gone: only the ones that exist.
    const all = this.indexes.posts.allPosts(this.words);
    for (let w = 0; w < out.length; w++) out[w] &= all[w];
    return { bits: out };
  }
}

function badLeaf(e: Expr): never {
  throw new Error(`the set strategy cannot evaluate ${e.kind}`);
}
