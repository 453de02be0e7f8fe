/**
 * The columns strategy: sets (tags, fav:, user:, ratings, date ranges, ...) ANDed with conditions
 * on the counts a process keeps in memory (likes, favs, comments), in the order of any of them, of
 * ids, dates (while ids follow dates) or order:random. The sets give the candidates (sets.ts);
 * each is tested against the conditions and the matches ranked, all in memory: a pass over the
 * candidates, where the driven strategy reads each one's row and the SQL one walks posts. Totals
 * are exact.
 */
import { split } from './driven.ts';
import { type Compiled, type Expr, type Interval, type OrderKey, randomRank } from '../expr.ts';
import { type Descending, eachId, has, type PostSet, Scratch } from '../sets/post-set.ts';
import type { CountField, KeptNumbers, KeptTags, SetIndexes } from '../sets/indexes.ts';
import { current } from '../sets/read-sets.ts';
import { datePage, type SetStrategy } from './sets.ts';
import { evaluateSets, sizeOfResult } from '../sets/evaluate.ts';
import { keptHeadsOf, keptTotalsOf } from '../sets/kept-answers.ts';
import { COUNT_CAP, type SearchPage } from './sql.ts';
import { HEAD_POSTS, type Total } from '../sets/totals.ts';

const COUNT_FIELDS: readonly string[] = ['likes', 'favs', 'comments'] satisfies CountField[];

/** Candidates counted one by one up to this many; past it a sample of them tells whether the total is far above COUNT_CAP. */
const EXACT_UP_TO = 20_000;
const SAMPLE = 5_000;

/** Whether an expression is conditions on the kept counts alone (with AND, OR, NOT). */
function countsAlone(e: Expr): boolean {
  switch (e.kind) {
    case 'num':
      return COUNT_FIELDS.includes(e.field);
    case 'not':
      return countsAlone(e.expr);
    case 'and':
    case 'or':
      return e.exprs.every(countsAlone);
    default:
      return false;
  }
}

/**
 * Whether an order's keys are all ones this strategy ranks by: counts, ids, order:random, and
 * dates while ids follow them (`follows`: then they are the id order), or first (the newest
 * order walked).
 */
function ranks(order: readonly OrderKey[], follows: boolean): boolean {
  return order.every((k, i) => COUNT_FIELDS.includes(k.field) || k.field === 'id' || k.field === 'random' || (k.field === 'created' && (follows || i === 0)));
}

/** Whether this strategy can answer the query (before its indexes are read). */
export function columnsServe(c: Compiled, indexes?: SetIndexes): boolean {
  return indexes?.numbers !== undefined && split(c.expr).rest.every(countsAlone) && ranks(c.order, true);
}

/** A page and the total (estimated only far above COUNT_CAP). */
export const columnsSearch: SetStrategy = async (db, c, offset, limit, indexes, budgetMs) => {
  const numbers = indexes.numbers;
  if (!numbers) return null;
  const follows = await current(db, indexes);
  const { sets, rest } = split(c.expr);
  if (!rest.every(countsAlone) || !ranks(c.order, follows)) return null;
  const countsAt = await numbers.current(db, indexes.posts.newestId);
  // A total holds while neither the data nor the counts move: asked again, only the page is worked out.
  const { version } = indexes;
  const stamp = version === undefined ? null : `${version}:${countsAt}`;
  const reads: Expr = { kind: 'and', exprs: sets };
  const { remember } = keptTotalsOf(indexes, c, reads, stamp);
  const found = async (offset: number, limit: number): Promise<SearchPage | null> => {
    const scratch = new Scratch();
    try {
      // Without a set that selects posts, every post is a candidate.
      const parts: Expr[] = sets.some((x) => x.kind !== 'not') ? sets : [{ kind: 'all' }, ...sets];
      const listed = byCountAlone(c.order) ? loneList(parts, indexes.tags) : null;
      if (listed) return rankListed(c, rest, listed, numbers, offset, limit);
      const candidates = await evaluateSets(db, parts.length === 1 ? parts[0] : { kind: 'and', exprs: parts }, indexes, budgetMs, scratch.take, follows);
      if (c.order[0].field === 'created' && !follows) {
        // Dates out of id order: the newest order walked; a cursor there is SQL's.
        if (c.before) return null;
        const test = tester({ kind: 'and', exprs: rest }, numbers);
        const keep = (id: number) => has(candidates, id) && test(id);
        const size = sizeOfResult(candidates, version);
        const { ids } = datePage(indexes.posts, c.order[0].dir, offset, limit, keep, undefined, { has: (id) => has(candidates, id), size });
        return { ids, ...remember(() => totalOf(rest.length === 0, rest, candidates, size, keep, numbers)) };
      }
      return rank(c, rest, candidates, sizeOfResult(candidates, version), numbers, offset, limit, remember);
    } finally {
      scratch.release();
    }
  };
  // An order by a count ranks every candidate whatever the page asked: the first pages are kept from one ask.
  const heads = byCountAlone(c.order) ? keptHeadsOf(indexes, c, reads, stamp) : null;
  if (!heads) return found(offset, limit);
  const kept = heads.page(offset, limit);
  if (kept) return kept;
  const want = Math.max(offset + limit, HEAD_POSTS);
  const page = await found(0, want);
  if (!page) return null;
  heads.keep(page.ids, page, want);
  return { ...page, ids: page.ids.slice(offset, offset + limit) };
};

/** The page and total of the candidates that pass the conditions on counts, in the query's order. */
function rank(
  c: Compiled,
  rest: Expr[],
  candidates: PostSet,
  size: number,
  numbers: KeptNumbers,
  offset: number,
  limit: number,
  remember: (work: () => Total) => Total,
): SearchPage {
  const test = tester({ kind: 'and', exprs: rest }, numbers);
  const below = c.before?.id ?? Infinity;
  const keep = (id: number) => id < below && test(id);
  const [first, ...then] = c.order;
  const k = offset + limit;
  const total = () => remember(() => totalOf(rest.length === 0 && !c.before, rest, candidates, size, keep, numbers));
  // By ids (or dates, while ids follow dates): the candidates' own order, read from the top.
  if (first.field === 'id' || first.field === 'created') {
    const ids = firstMatches(candidates, first.dir, keep, k);
    return { ids: ids.slice(offset), ...total() };
  }
  const tieByNewest = tiesByNewest(then);
  // The highest counts first: the count's leading posts, walked until the page is found among them.
  if (COUNT_FIELDS.includes(first.field) && first.dir === 'desc' && tieByNewest && size > EXACT_UP_TO) {
    const ids = fromLeaders(numbers.leading(first.field as CountField), candidates, keep, k);
    if (ids) return { ids: ids.slice(offset), ...total() };
  }
  return ranked(c, rest, candidates, size, numbers, offset, limit, keep);
}

/**
 * Every candidate that passes (`keep`, or one range of one count read in the loop), then the
 * first `offset + limit` of them in the query's order: by a count, newer first among equals,
 * ranked by the count's histogram without comparing posts; else by a bounded heap. The total is exact.
 */
function ranked(
  c: Compiled,
  rest: Expr[],
  candidates: PostSet | Descending,
  size: number,
  numbers: KeptNumbers,
  offset: number,
  limit: number,
  keep: (id: number) => boolean,
): SearchPage {
  const matches = matchesRoom(size);
  const n = collect(candidates, c.before?.id ?? Infinity, oneRange(rest, numbers), keep, matches);
  const found = matches.subarray(0, n);
  const k = offset + limit;
  const ids = byCountAlone(c.order)
    ? byCount(found, countReader(numbers, c.order[0].field as CountField), c.order[0].dir, k)
    : top(found, k, comparator(c.order, c.seed, numbers));
  return { ids: ids.slice(offset), total: n, estimated: false };
}

/**
 * Room for a ranking's matches, used again by every ranking of the process (each is over before
 * the next starts): a fresh array each time, up to a million ids, was a sixth of a page by likes
 * in collecting garbage.
 */
let matchesKept = new Int32Array(1024);
/** Past this many (1 MB) the room is made for the one ranking: a process keeps no more. */
const KEPT_MATCHES = 1 << 18;
function matchesRoom(size: number): Int32Array {
  if (size > KEPT_MATCHES) return new Int32Array(size);
  if (matchesKept.length < size) matchesKept = new Int32Array(Math.min(KEPT_MATCHES, Math.max(size, 2 * matchesKept.length)));
  return matchesKept;
}

/** A condition on one count as inclusive bounds, the count read from its array (countReader). */
interface OneRange {
  count: (id: number) => number;
  lo: number;
  hi: number;
}

/** The conditions when they are none (every count passes) or one range of one count (`likes:>N`, the usual case); else null. */
function oneRange(rest: Expr[], numbers: KeptNumbers): OneRange | null {
  if (rest.length === 0) return { count: () => 0, lo: 0, hi: 0 };
  const e = rest[0];
  if (rest.length > 1 || e.kind !== 'num' || !COUNT_FIELDS.includes(e.field) || e.ranges.length !== 1) return null;
  const { lo, hi, loOpen, hiOpen } = e.ranges[0];
  // Counts are whole numbers: an open or fractional bound becomes the nearest whole one inside.
  return {
    count: countReader(numbers, e.field as CountField),
    lo: loOpen ? Math.floor(lo) + 1 : Math.ceil(lo),
    hi: hiOpen ? Math.ceil(hi) - 1 : Math.floor(hi),
  };
}

/**
 * Writes the candidates below `below` that pass the conditions into `out`, highest first; how
 * many. With none or one range of one count (`range`), the loop reads the count's array itself:
 * a call an id through eachId, keep and the tester cost a page by likes most of its time.
 */
function collect(candidates: PostSet | Descending, below: number, range: OneRange | null, keep: (id: number) => boolean, out: Int32Array): number {
  const passes = range === null ? keep : (id: number) => id < below && inRange(range, id);
  let n = 0;
  if ('next' in candidates) {
    for (let id = candidates.next(); id >= 0; id = candidates.next()) if (passes(id)) out[n++] = id;
  } else if ('ids' in candidates) {
    const ids = candidates.ids;
    for (let i = 0; i < ids.length; i++) if (passes(ids[i])) out[n++] = ids[i];
  } else {
    const bits = candidates.bits;
    for (let w = bits.length - 1; w >= 0; w--) {
      for (let x = bits[w]; x !== 0; ) {
        const b = 31 - Math.clz32(x);
        x &= ~(1 << b);
        if (passes(w * 32 + b)) out[n++] = w * 32 + b;
      }
    }
  }
  return n;
}

/** Whether order keys break ties by newest (by id or date, descending), as a count's order does. */
const tiesByNewest = (keys: readonly OrderKey[]) => keys.every((x) => (x.field === 'id' || x.field === 'created') && x.dir === 'desc');

/** Whether the order is by a count, ties by newest: ranked by the count's histogram. */
const byCountAlone = (order: readonly OrderKey[]) => COUNT_FIELDS.includes(order[0].field) && tiesByNewest(order.slice(1));

/**
 * The query's one tag when it is kept as a list of at most EXACT_UP_TO posts that is not kept
 * decoded: ranked, it is read from its top as it is walked. Decoding it into an array for each
 * ask (the decoded lists' budget holds few of the tags a page by likes asks) was a quarter of
 * that page's time, in the decoding and in collecting the arrays.
 */
function loneList(parts: Expr[], tags: KeptTags): { size: number; read: () => Descending } | null {
  const [e] = parts;
  if (parts.length !== 1 || e.kind !== 'tags' || e.ids.length !== 1) return null;
  const id = e.ids[0];
  if (!tags.descendingOf || !tags.sizeOf || !tags.hasBitmap || !tags.has(id) || tags.hasBitmap(id) || tags.decodedOf?.(id)) return null;
  const size = tags.sizeOf(id);
  return size <= EXACT_UP_TO ? { size, read: () => tags.descendingOf!(id) } : null;
}

/** The page and total of a tag kept as a list (loneList) by a count: its ids read from the top into the matches, then ranked. */
function rankListed(
  c: Compiled,
  rest: Expr[],
  listed: { size: number; read: () => Descending },
  numbers: KeptNumbers,
  offset: number,
  limit: number,
): SearchPage {
  const test = tester({ kind: 'and', exprs: rest }, numbers);
  const below = c.before?.id ?? Infinity;
  return ranked(c, rest, listed.read(), listed.size, numbers, offset, limit, (id) => id < below && test(id));
}

/** Whether a post's count is within the range. */
function inRange(range: OneRange, id: number): boolean {
  const v = range.count(id);
  return v >= range.lo && v <= range.hi;
}

/** How many candidates `keep` takes (exact, or estimated far above COUNT_CAP); `every`: it takes them all. */
function totalOf(every: boolean, rest: Expr[], candidates: PostSet, size: number, keep: (id: number) => boolean, numbers: KeptNumbers) {
  return every ? { total: size, estimated: false } : (amongLeaders(rest, candidates, keep, numbers) ?? countOf(candidates, keep, size));
}

/** The first `k` candidates that `keep` takes, in id order. */
function firstMatches(s: PostSet, dir: 'asc' | 'desc', keep: (id: number) => boolean, k: number): number[] {
  const out: number[] = [];
  if (k > 0) {
    eachId(s, dir, (id) => {
      if (keep(id)) out.push(id);
      return out.length < k;
    });
  }
  return out;
}

/** The first `k` candidates that `keep` takes among the leading posts of a count, or null when they run out first. */
function fromLeaders(leaders: Int32Array, s: PostSet, keep: (id: number) => boolean, k: number): number[] | null {
  const out: number[] = [];
  for (let i = 0; i < leaders.length && out.length < k; i++) if (has(s, leaders[i]) && keep(leaders[i])) out.push(leaders[i]);
  return out.length === k ? out : null;
}

/**
 * How many candidates `keep` takes when the query asks for a count above some N (`likes:>N`) and
 * every post with such a count is among the count's leading posts: those are walked, not the
 * candidates. Null when it does not apply.
 */
function amongLeaders(rest: Expr[], s: PostSet, keep: (id: number) => boolean, numbers: KeptNumbers): { total: number; estimated: boolean } | null {
  const floor = rest.find(
    (x): x is Extract<Expr, { kind: 'num' }> => x.kind === 'num' && COUNT_FIELDS.includes(x.field) && x.ranges.length === 1 && x.ranges[0].lo > 0,
  );
  if (!floor) return null;
  const leaders = numbers.leading(floor.field as CountField);
  const value = numbers.column(floor.field as CountField);
  const { lo, loOpen } = floor.ranges[0];
  const above = (id: number) => (loOpen ? value(id) > lo : value(id) >= lo);
  // The leaders must reach past the floor: their last one is below it.
  if (leaders.length === 0 || above(leaders[leaders.length - 1])) return null;
  let n = 0;
  for (let i = 0; i < leaders.length && above(leaders[i]); i++) if (has(s, leaders[i]) && keep(leaders[i])) n++;
  return { total: n, estimated: false };
}

/**
 * How many candidates `keep` takes: exact when they are few, or when a stratified sample of them
 * (every so many words of a bitmap, every so many ids of a list) does not put the total far
 * above COUNT_CAP; else that sample's estimate.
 */
function countOf(s: PostSet, keep: (id: number) => boolean, size: number): { total: number; estimated: boolean } {
  if (size > EXACT_UP_TO) {
    let seen = 0;
    let hits = 0;
    if ('ids' in s) {
      const step = Math.ceil(size / SAMPLE);
      for (let i = 0; i < s.ids.length; i += step, seen++) if (keep(s.ids[i])) hits++;
    } else {
      const step = Math.max(1, Math.floor((s.bits.length * SAMPLE) / size));
      for (let w = 0; w < s.bits.length; w += step) {
        for (let x = s.bits[w]; x !== 0; x &= x - 1, seen++) if (keep(w * 32 + 31 - Math.clz32(x & -x))) hits++;
      }
    }
    const estimate = Math.round((hits / Math.max(1, seen)) * size);
    if (estimate >= 2 * COUNT_CAP) return { total: estimate, estimated: true };
  }
  let n = 0;
  eachId(s, 'desc', (id) => {
    if (keep(id)) n++;
    return true;
  });
  return { total: n, estimated: false };
}

/** A post's count read from the count's array (a function V8 can inline, where column() is a call through the kept numbers). */
function countReader(numbers: KeptNumbers, field: CountField): (id: number) => number {
  const { array, capped } = numbers.values(field);
  const column = numbers.column(field);
  return (id) => {
    const v = id < array.length ? array[id] : 0;
    return v === capped ? column(id) : v;
  };
}

/** Counts at or above this share the histogram's last bucket (and are then compared one by one). */
const BUCKETS = 1 << 16;
/** Zero between uses: each use clears the buckets it filled. */
const histogram = new Uint32Array(BUCKETS + 1);

/**
 * The first `k` of `ids` (highest first) by a count ('desc': the highest counts first), the
 * higher id first among equal counts. The histogram of their counts gives the count the k-th
 * has; one more pass takes the ids above it, and those at it in the order they come (highest
 * first), and only those are sorted.
 */
function byCount(ids: Int32Array, value: (id: number) => number, dir: 'asc' | 'desc', k: number): number[] {
  if (k <= 0 || ids.length === 0) return [];
  const bucket = (v: number) => (dir === 'desc' ? Math.min(v, BUCKETS) : BUCKETS - Math.min(v, BUCKETS));
  // Counts are mostly small: only the buckets between the lowest and the highest filled are walked and cleared, not all 65,537.
  let lo = BUCKETS;
  let hi = 0;
  for (let i = 0; i < ids.length; i++) {
    const b = bucket(value(ids[i]));
    histogram[b]++;
    if (b < lo) lo = b;
    if (b > hi) hi = b;
  }
  // The bucket of the k-th, from the best end; every id in a better bucket is taken.
  let t = hi;
  for (let seen = 0; t > lo && seen + histogram[t] < k; t--) seen += histogram[t];
  histogram.fill(0, lo, hi + 1);
  const taken: number[] = [];
  let ties = 0;
  for (let i = 0; i < ids.length; i++) {
    const b = bucket(value(ids[i]));
    if (b > t || (b === t && (ties++ < k || t === BUCKETS || t === 0))) taken.push(ids[i]);
  }
  const sign = dir === 'desc' ? -1 : 1;
  return taken.sort((a, b) => (value(a) - value(b)) * sign || b - a).slice(0, k);
}

/** A test of a post against conditions on its counts. */
function tester(e: Expr, numbers: KeptNumbers): (id: number) => boolean {
  switch (e.kind) {
    case 'num': {
      const value = numbers.column(e.field as CountField);
      const ranges = e.ranges;
      if (ranges.length === 1) {
        const r = ranges[0];
        return (id) => within(value(id), r);
      }
      return (id) => {
        const v = value(id);
        for (let i = 0; i < ranges.length; i++) if (within(v, ranges[i])) return true;
        return false;
      };
    }
    case 'not': {
      const inner = tester(e.expr, numbers);
      return (id) => !inner(id);
    }
    case 'and':
    case 'or': {
      const parts = e.exprs.map((x) => tester(x, numbers));
      if (parts.length === 1) return parts[0];
      const all = e.kind === 'and';
      return (id) => {
        for (let i = 0; i < parts.length; i++) if (parts[i](id) !== all) return !all;
        return all;
      };
    }
    default:
      throw new Error(`the columns strategy cannot test ${e.kind}`);
  }
}

function within(v: number, r: Interval): boolean {
  return (r.loOpen ? v > r.lo : v >= r.lo) && (r.hiOpen ? v < r.hi : v <= r.hi);
}

/** Negative when post `a` comes before post `b` in the order. */
function comparator(order: readonly OrderKey[], seed: number, numbers: KeptNumbers): (a: number, b: number) => number {
  const keys = order.map((k) => {
    const value =
      k.field === 'random'
        ? (id: number) => randomRank(id, seed)
        : k.field === 'id' || k.field === 'created'
          ? (id: number) => id
          : numbers.column(k.field as CountField);
    return { value, sign: k.dir === 'asc' ? 1 : -1 };
  });
  return (a, b) => {
    for (const k of keys) {
      const d = k.value(a) - k.value(b);
      if (d !== 0) return d * k.sign;
    }
    return 0;
  };
}

/** The first `k` ids in the order, in order: a bounded heap with the last of them on top. */
function top(ids: Int32Array, k: number, cmp: (a: number, b: number) => number): number[] {
  if (k <= 0) return [];
  if (ids.length <= k * 4) return Array.from(ids).sort(cmp).slice(0, k);
  const heap: number[] = [];
  // Max-heap by the order: heap[0] is the worst of the best k so far.
  const worse = (i: number, j: number) => cmp(heap[i], heap[j]) > 0;
  const swap = (i: number, j: number) => {
    const t = heap[i];
    heap[i] = heap[j];
    heap[j] = t;
  };
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i];
    if (heap.length < k) {
      heap.push(id);
      for (let j = heap.length - 1; j > 0 && worse(j, (j - 1) >> 1); j = (j - 1) >> 1) swap(j, (j - 1) >> 1);
    } else if (cmp(id, heap[0]) < 0) {
      heap[0] = id;
      for (let j = 0; ; ) {
        const l = 2 * j + 1;
        const r = l + 1;
        let m = j;
        if (l < k && worse(l, m)) m = l;
        if (r < k && worse(r, m)) m = r;
        if (m === j) break;
        swap(j, m);
        j = m;
      }
    }
  }
  return heap.sort(cmp);
}
