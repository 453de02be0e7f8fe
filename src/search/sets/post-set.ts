/**
 * A set of post ids as the in-memory strategies hold it: a bitmap over every id (bit i: post i)
 * when it is dense, or its ids highest first when it is sparse. A bitmap costs a pass over every
 * word whatever it holds (31,250 at a million posts); a few thousand ids cost their own number.
 * So AND is driven by the smallest sparse part and tests each of its ids against the others, OR
 * merges sparse parts while they stay sparse, and a bitmap is made only when a set is dense.
 * No operation changes the sets it is given (a kept bitmap is shared with the tag sets).
 */
import { containsDescending, popcount } from '../../core/typed-arrays.ts';

export type PostSet = { bits: Int32Array } | { ids: Int32Array };

/** Where an operation gets a zeroed bitmap of `words` words. */
export type Take = (words: number) => Int32Array;
const fresh: Take = (words) => new Int32Array(words);

/** Bitmaps given back by searches that are done with them, by length: a few of each kept for the next. */
const spare = new Map<number, Int32Array[]>();
const SPARE_EACH = 16;

/**
 * The bitmaps one search makes, given back when it is done. A search at a million posts makes a
 * 125 KB bitmap for most nodes of its query; made new each time, they are garbage the collector
 * has to be driven to by their weight outside the heap, and the CPU time of a query a third or
 * more (docs/benchmarks.md).
 */
export class Scratch {
  private taken: Int32Array[] = [];

  readonly take: Take = (words) => {
    const again = spare.get(words)?.pop();
    const out = again ? again.fill(0) : new Int32Array(words);
    this.taken.push(out);
    return out;
  };

  /** Every bitmap taken goes back: nothing of this search may be read after. */
  release(): void {
    for (const b of this.taken) {
      const list = spare.get(b.length) ?? [];
      if (list.length < SPARE_EACH) list.push(b);
      spare.set(b.length, list);
    }
    this.taken = [];
  }
}

/** A set's ids from the highest down, one a call to next(); -1 once there are no more. */
export interface Descending {
  next(): number;
  /** Jumps past ids above `id` where it can (IdReader.skip): the id it is at then, or `current`. */
  skip?(id: number, current: number): number;
}

/** The ids of a set as it is held, from the highest down. */
export function descending(s: PostSet): Descending {
  if ('ids' in s) {
    const ids = s.ids;
    let i = 0;
    return { next: () => (i < ids.length ? ids[i++] : -1) };
  }
  const bits = s.bits;
  let w = bits.length - 1;
  let word = w >= 0 ? bits[w] : 0;
  return {
    next() {
      while (word === 0) {
        if (--w < 0) return -1;
        word = bits[w];
      }
      const bit = 31 - Math.clz32(word);
      word &= ~(1 << bit);
      return w * 32 + bit;
    },
  };
}

/** Parts a union read from the top compares one by one; past this many, a heap orders their heads. */
export const UNION_SCANNED = 8;

/** The union of sets read from the top: each id once, highest first. */
export function unionDescending(parts: Descending[]): Descending {
  if (parts.length === 1) return parts[0];
  if (parts.length > UNION_SCANNED) return new HeapUnion(parts);
  const heads = parts.map((p) => p.next());
  return {
    next() {
      let top = -1;
      for (let i = 0; i < heads.length; i++) if (heads[i] > top) top = heads[i];
      if (top >= 0) for (let i = 0; i < heads.length; i++) if (heads[i] === top) heads[i] = parts[i].next();
      return top;
    },
  };
}

/**
 * The union of many sets read from the top (a wildcard's tags): the parts' next ids in a heap,
 * the highest on top, so each id costs a few comparisons whatever the number of parts.
 */
class HeapUnion implements Descending {
  private readonly heads: Int32Array;
  /** The part each head comes from. */
  private readonly from: Int32Array;
  private n = 0;

  constructor(private readonly parts: Descending[]) {
    this.heads = new Int32Array(parts.length);
    this.from = new Int32Array(parts.length);
    for (let i = 0; i < parts.length; i++) {
      const id = parts[i].next();
      if (id < 0) continue;
      this.heads[this.n] = id;
      this.from[this.n++] = i;
    }
    for (let i = (this.n >> 1) - 1; i >= 0; i--) this.down(i);
  }

  next(): number {
    if (this.n === 0) return -1;
    const top = this.heads[0];
    // Every part at this id moves on: the id is given once.
    while (this.n > 0 && this.heads[0] === top) {
      const id = this.parts[this.from[0]].next();
      if (id >= 0) this.heads[0] = id;
      else {
        this.n--;
        this.heads[0] = this.heads[this.n];
        this.from[0] = this.from[this.n];
      }
      this.down(0);
    }
    return top;
  }

  private down(i: number): void {
    const { heads, from, n } = this;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < n && heads[l] > heads[m]) m = l;
      if (r < n && heads[r] > heads[m]) m = r;
      if (m === i) return;
      const h = heads[i];
      heads[i] = heads[m];
      heads[m] = h;
      const f = from[i];
      from[i] = from[m];
      from[m] = f;
      i = m;
    }
  }
}

/**
 * A membership test for ids asked in descending order only (a walk from the top): the set's ids
 * are read down to each one asked, so a walk that stops early reads no further.
 */
export function memberDescending(ids: Descending): (id: number) => boolean {
  let at = ids.next();
  return (id) => {
    if (at > id && ids.skip) at = ids.skip(id, at);
    while (at > id) at = ids.next();
    return at === id;
  };
}

const EMPTY: PostSet = { ids: new Int32Array(0) };
export const emptySet = (): PostSet => EMPTY;

/** A test of membership made for the set's form: a bit, or a binary search in its ids. */
export function memberOf(s: PostSet): (id: number) => boolean {
  if ('ids' in s) {
    const ids = s.ids;
    return (id) => containsDescending(ids, id);
  }
  const bits = s.bits;
  return (id) => (bits[id >>> 5] & (1 << (id & 31))) !== 0;
}

/** Whether the set holds the post. */
export function has(s: PostSet, id: number): boolean {
  if ('bits' in s) {
    const w = id >>> 5;
    return w < s.bits.length && (s.bits[w] & (1 << (id & 31))) !== 0;
  }
  return containsDescending(s.ids, id);
}

export function sizeOf(s: PostSet): number {
  if ('ids' in s) return s.ids.length;
  let n = 0;
  for (let w = 0; w < s.bits.length; w++) if (s.bits[w] !== 0) n += popcount(s.bits[w]);
  return n;
}

/** Sets the bits of the ids in `bits`; ids past its end are left out. */
export function markIds(ids: ArrayLike<number>, bits: Int32Array): void {
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i];
    if (id >>> 5 < bits.length) bits[id >>> 5] |= 1 << (id & 31);
  }
}

/** Adds the set's posts to the bitmap `out`; posts past its end are left out. */
export function orInto(s: PostSet, out: Int32Array): void {
  if ('ids' in s) markIds(s.ids, out);
  else for (let w = Math.min(s.bits.length, out.length) - 1; w >= 0; w--) out[w] |= s.bits[w];
}

/** A bitmap of `words` words of its own with the set's posts. */
export function bitsOf(s: PostSet, words: number, take: Take = fresh): Int32Array {
  const out = take(words);
  if ('bits' in s) out.set(s.bits.length > words ? s.bits.subarray(0, words) : s.bits);
  else markIds(s.ids, out);
  return out;
}

/** Ids in any order as a sparse set (sorted highest first, each once). */
export function fromIds(ids: ArrayLike<number>): PostSet {
  const sorted = Int32Array.from(ids).sort().reverse();
  let n = 0;
  for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) sorted[n++] = sorted[i];
  return { ids: sorted.subarray(0, n) };
}

/** Posts in any of the sets: merged ids while the result stays sparse (no more ids than words), else a bitmap. */
export function union(sets: PostSet[], words: number, take: Take = fresh): PostSet {
  // Sets are never changed in place, so one part is the answer as it is (a kept bitmap, not a copy).
  if (sets.length === 1) return sets[0];
  if (sets.length === 0) return EMPTY;
  const sparse = sets.every((s) => 'ids' in s);
  const total = sets.reduce((n, s) => n + ('ids' in s ? s.ids.length : 0), 0);
  if (sparse && total <= words) {
    // Each is highest first already: merged two by two, in rounds, instead of sorted whole.
    let lists = sets.map((s) => (s as { ids: Int32Array }).ids);
    while (lists.length > 1) {
      const next: Int32Array[] = [];
      for (let i = 0; i < lists.length; i += 2) next.push(i + 1 < lists.length ? merged(lists[i], lists[i + 1]) : lists[i]);
      lists = next;
    }
    return { ids: lists[0] };
  }
  const out = take(words);
  for (const s of sets) orInto(s, out);
  return { bits: out };
}

/** The ids of two lists, highest first, each once. */
function merged(a: Int32Array, b: Int32Array): Int32Array {
  const out = new Int32Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length && j < b.length) {
    const x = a[i];
    const y = b[j];
    if (x > y) {
      out[n++] = x;
      i++;
    } else if (y > x) {
      out[n++] = y;
      j++;
    } else {
      out[n++] = x;
      i++;
      j++;
    }
  }
  while (i < a.length) out[n++] = a[i++];
  while (j < b.length) out[n++] = b[j++];
  return out.subarray(0, n);
}

/** Posts in every set: the smallest sparse one's ids, each tested against the others; bitmaps ANDed word by word. */
export function intersection(sets: PostSet[], words: number, take: Take = fresh): PostSet {
  return allOfNoneOf(sets, [], words, take);
}

/** Posts of `base` in none of `minus`. */
export function difference(base: PostSet, minus: PostSet[], words: number, take: Take = fresh): PostSet {
  return allOfNoneOf([base], minus, words, take);
}

const sparseOf = (sets: PostSet[]) => sets.flatMap((s) => ('ids' in s ? [s.ids] : []));
const denseOf = (sets: PostSet[]) => sets.flatMap((s) => ('bits' in s ? [s.bits] : []));

/**
 * Posts in every set of `plus` (one at least) and in none of `minus`. With a sparse part, its
 * smallest one's ids are narrowed by the other sparse sets and then tested once against every
 * bitmap, kept or taken away. Else the bitmaps are combined in as few passes over the words as
 * they allow (three a pass), the ones taken away inverted in the same pass: A AND B AND NOT C
 * is one pass, not a copy, an AND and a difference.
 */
export function allOfNoneOf(plus: PostSet[], minus: PostSet[], words: number, take: Take = fresh): PostSet {
  // Sets are never changed in place, so one part is the answer as it is.
  if (plus.length === 1 && minus.length === 0) return plus[0];
  const sparse = sparseOf(plus).sort((a, b) => a.length - b.length);
  const keep = denseOf(plus);
  const drop = denseOf(minus);
  if (sparse.length) {
    let ids = sparse[0];
    for (const other of sparse.slice(1)) ids = sparseAnd(ids, other, true);
    // More ids than words: a bitmap of them ANDed word by word costs less than a test each.
    if (ids.length <= words) {
      for (const m of sparseOf(minus)) ids = sparseAnd(ids, m, false);
      return { ids: keep.length || drop.length ? inBitmaps(ids, keep, drop) : ids };
    }
    keep.push(bitsOf({ ids }, words, take));
  }
  const out = take(words);
  combineWords(out, keep, drop, words);
  for (const ids of sparseOf(minus)) for (const id of ids) if (id >>> 5 < words) out[id >>> 5] &= ~(1 << (id & 31));
  return { bits: out };
}

/**
 * Writes into `out` (zeroed) the words of every bitmap of `keep` (one at least) ANDed with the
 * inverse of every bitmap of `drop`. A word past a kept bitmap's end is empty; past a dropped
 * one's end, nothing is taken away.
 */
function combineWords(out: Int32Array, keep: Int32Array[], drop: Int32Array[], words: number): void {
  let end = words;
  for (const b of keep) end = Math.min(end, b.length);
  // Each bitmap with its mask: x ^ 0 is x, x ^ -1 is NOT x, so every part is ANDed alike.
  const parts = [...keep.map((b) => ({ b, x: 0 })), ...drop.filter((b) => b.length >= end).map((b) => ({ b, x: -1 }))];
  for (let i = 0; i < parts.length; i += 3) {
    const [p, q, r] = parts.slice(i, i + 3);
    if (r) pass3(out, end, i === 0, p.b, p.x, q.b, q.x, r.b, r.x);
    else if (q) pass2(out, end, i === 0, p.b, p.x, q.b, q.x);
    else pass1(out, end, i === 0, p.b, p.x);
  }
  for (const b of drop) if (b.length < end) for (let w = 0; w < b.length; w++) out[w] &= ~b[w];
}

function pass1(out: Int32Array, end: number, first: boolean, a: Int32Array, xa: number): void {
  if (first) for (let w = 0; w < end; w++) out[w] = a[w] ^ xa;
  else for (let w = 0; w < end; w++) out[w] &= a[w] ^ xa;
}

function pass2(out: Int32Array, end: number, first: boolean, a: Int32Array, xa: number, b: Int32Array, xb: number): void {
  if (first) for (let w = 0; w < end; w++) out[w] = (a[w] ^ xa) & (b[w] ^ xb);
  else for (let w = 0; w < end; w++) out[w] &= (a[w] ^ xa) & (b[w] ^ xb);
}

function pass3(out: Int32Array, end: number, first: boolean, a: Int32Array, xa: number, b: Int32Array, xb: number, c: Int32Array, xc: number): void {
  if (first) for (let w = 0; w < end; w++) out[w] = (a[w] ^ xa) & (b[w] ^ xb) & (c[w] ^ xc);
  else for (let w = 0; w < end; w++) out[w] &= (a[w] ^ xa) & (b[w] ^ xb) & (c[w] ^ xc);
}

/** The ids that are in every bitmap of `keep` and in none of `drop`. */
function inBitmaps(ids: Int32Array, keep: Int32Array[], drop: Int32Array[]): Int32Array {
  const out = new Int32Array(ids.length);
  let n = 0;
  next: for (let i = 0; i < ids.length; i++) {
    const id = ids[i];
    const w = id >>> 5;
    const bit = 1 << (id & 31);
    for (let k = 0; k < keep.length; k++) if (w >= keep[k].length || (keep[k][w] & bit) === 0) continue next;
    for (let k = 0; k < drop.length; k++) if (w < drop[k].length && (drop[k][w] & bit) !== 0) continue next;
    out[n++] = id;
  }
  return out.subarray(0, n);
}

/**
 * The ids of `a` that are (`keep` true) or are not in `b`, both highest first. A walk of both
 * when they are of a size; a binary search in `b` for each of `a` when `b` is far larger.
 */
function sparseAnd(a: Int32Array, b: Int32Array, keep: boolean): Int32Array {
  if (a.length * Math.log2(b.length + 2) < a.length + b.length) return a.filter((id) => containsDescending(b, id) === keep);
  const out = new Int32Array(a.length);
  let n = 0;
  let j = 0;
  for (let i = 0; i < a.length; i++) {
    const id = a[i];
    while (j < b.length && b[j] > id) j++;
    if ((j < b.length && b[j] === id) === keep) out[n++] = id;
  }
  return out.subarray(0, n);
}

/** The set without the posts from `id` up (the keyset cursor, in id order). */
export function below(s: PostSet, id: number, words: number, take: Take = fresh): PostSet {
  return within(s, [[0, id - 1]], words, take);
}

/** The set's posts whose ids lie in any of the spans (each from its low to its high id, both included). */
export function within(s: PostSet, spans: [number, number][], words: number, take: Take = fresh): PostSet {
  if ('ids' in s) {
    // Ids highest first: each span is one stretch of them, found by binary search, not copied.
    const ids = s.ids;
    const parts = spans.map(([lo, hi]): PostSet => ({ ids: ids.subarray(firstAtMost(ids, hi), firstAtMost(ids, lo - 1)) }));
    return parts.length === 1 ? parts[0] : union(parts, words, take);
  }
  const out = take(words);
  for (const [lo, hi] of spans) {
    const from = Math.max(0, lo);
    const to = Math.min(words * 32 - 1, hi, s.bits.length * 32 - 1);
    for (let w = from >>> 5; w <= to >>> 5 && from <= to; w++) {
      // The first and last words of the span keep only its bits.
      const low = w === from >>> 5 ? -1 << (from & 31) : -1;
      const high = w === to >>> 5 ? -1 >>> (31 - (to & 31)) : -1;
      out[w] |= s.bits[w] & low & high;
    }
  }
  return { bits: out };
}

/** The first index of ids (highest first) whose id is at most `x`: ids.length when none is. */
function firstAtMost(ids: Int32Array, x: number): number {
  let lo = 0;
  let hi = ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ids[mid] <= x) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Visits the set's ids, highest first ('desc') or lowest first, until `visit` returns false. */
export function eachId(s: PostSet, dir: 'asc' | 'desc', visit: (id: number) => boolean): void {
  if ('ids' in s) {
    const ids = s.ids;
    if (dir === 'desc') {
      for (let i = 0; i < ids.length; i++) if (!visit(ids[i])) return;
    } else {
      for (let i = ids.length - 1; i >= 0; i--) if (!visit(ids[i])) return;
    }
    return;
  }
  const bits = s.bits;
  const step = dir === 'desc' ? -1 : 1;
  for (let w = dir === 'desc' ? bits.length - 1 : 0; w >= 0 && w < bits.length; w += step) {
    for (let x = bits[w]; x !== 0; ) {
      const b = dir === 'desc' ? 31 - Math.clz32(x) : 31 - Math.clz32(x & -x);
      x &= ~(1 << b);
      if (!visit(w * 32 + b)) return;
    }
  }
}

/** A page of the set's ids, highest first ('desc') or lowest first. */
export function pageOf(s: PostSet, dir: 'asc' | 'desc', offset: number, limit: number): number[] {
  if ('ids' in s) {
    const ids = s.ids;
    if (dir === 'desc') return Array.from(ids.subarray(Math.min(offset, ids.length), Math.min(offset + limit, ids.length)));
    const out: number[] = [];
    for (let i = ids.length - 1 - offset; i >= 0 && out.length < limit; i--) out.push(ids[i]);
    return out;
  }
  const bits = s.bits;
  const ids: number[] = [];
  let skip = offset;
  const step = dir === 'desc' ? -1 : 1;
  for (let w = dir === 'desc' ? bits.length - 1 : 0; w >= 0 && w < bits.length && ids.length < limit; w += step) {
    let x = bits[w];
    if (x === 0) continue;
    // Words wholly inside the offset are counted, not read bit by bit.
    const n = popcount(x);
    if (skip >= n) {
      skip -= n;
      continue;
    }
    while (x !== 0 && ids.length < limit) {
      const b = dir === 'desc' ? 31 - Math.clz32(x) : 31 - Math.clz32(x & -x);
      x &= ~(1 << b);
      if (skip > 0) skip--;
      else ids.push(w * 32 + b);
    }
  }
  return ids;
}

/** Sets the bits from `from` to `to`, both included (nothing when `from` > `to`). */
export function setRange(bits: Int32Array, from: number, to: number): void {
  for (let id = from; id <= to; ) {
    const w = id >>> 5;
    const bit = id & 31;
    if (bit === 0 && id + 31 <= to) {
      bits[w] = -1;
      id += 32;
    } else {
      bits[w] |= 1 << bit;
      id++;
    }
  }
}
