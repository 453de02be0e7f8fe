/**
 * A query of sets alone evaluated into a PostSet node by node (post-set.ts): every intermediate
 * result a bitmap over post ids or a list of ids; kept bitmaps used as they are, never written.
 */
import { type Database, OverBudget } from '../../db/engine.ts';
import type { Expr, Interval } from '../expr.ts';
import {
  allOfNoneOf,
  type Descending,
  descending,
  emptySet,
  fromIds,
  markIds,
  memberDescending,
  memberOf,
  orInto,
  type PostSet,
  setRange,
  sizeOf,
  type Take,
  union,
  UNION_SCANNED,
  unionDescending,
  within,
} from './post-set.ts';
import type { KeptTags, SetIndexes, SetKind } from './indexes.ts';
import { type Fetched, fetchSets, keyOf, kindKeys, ratingKeys } from './read-sets.ts';

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
export const wordsOf = (indexes: SetIndexes) => Math.max(indexes.tags.bitmapWords, (indexes.posts.newestId >>> 5) + 1);

/** The posts of an expression of sets alone; the bitmaps it makes come from `take` (a search's Scratch). */
export async function evaluateSets(db: Database, e: Expr, indexes: SetIndexes, budgetMs: number, take: Take, follows: boolean): Promise<PostSet> {
  const fetched = await fetchSets(db, e, indexes);
  return new Evaluator(indexes, fetched, wordsOf(indexes), budgetMs, take, follows).eval(e);
}

/** Evaluates an expression of sets alone into a PostSet (post-set.ts), node by node; kept bitmaps are used as they are. */
export class Evaluator {
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

/** Membership tests a post costs against `e` at most: one a set (a wildcard is as many as its tags). */
export function testsOf(e: Expr): number {
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

/** `e` without one of the parts it ANDs (everything, when `e` is that part). */
export function without(e: Expr, part: Expr): Expr {
  if (e === part) return { kind: 'all' };
  if (e.kind !== 'and') return e;
  const rest = e.exprs.filter((x) => x !== part);
  return rest.length === 1 ? rest[0] : { kind: 'and', exprs: rest };
}
