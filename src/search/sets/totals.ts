import { arrayBytes, MAP_ENTRY, objectBytes, stringBytes } from '../../core/heap-estimate.ts';

/** A total as a strategy gives it. */
export interface Total {
  total: number;
  estimated: boolean;
}

/**
 * Values worked out at one state of the data, by query: a stamp names the state (the data
 * version, and the counts' own counter where counts are in the query). A value is given back only
 * at the stamp it was worked out at. The newest few stamps are kept (the sets strategy's and the
 * columns strategy's differ at the same moment), `max` values each.
 */
export class KeptAtStamp<T> {
  private readonly byStamp = new Map<string, Map<string, T>>();

  constructor(
    private readonly max = 2_000,
    private readonly stamps = 4,
  ) {}

  /** Bytes held, estimated: per stamp a map and its text; per value a map entry, its key's text and the value (valueBytes). */
  bytes(): number {
    let sum = 0;
    for (const [stamp, kept] of this.byStamp) {
      sum += MAP_ENTRY + stringBytes(stamp) + objectBytes(4);
      for (const [key, value] of kept) sum += MAP_ENTRY + stringBytes(key) + this.valueBytes(value);
    }
    return sum;
  }

  /** A value's bytes, estimated: an object of a few numbers (a Total). */
  protected valueBytes(_value: T): number {
    return objectBytes(2);
  }

  /** The value of `key` kept at `stamp`, if any. */
  peek(key: string, stamp: string): T | undefined {
    return this.byStamp.get(stamp)?.get(key);
  }

  /** The kept value of `key` at `stamp`, or `work` done and kept. */
  of(key: string, stamp: string, work: () => T): T {
    const known = this.peek(key, stamp);
    if (known !== undefined) return known;
    const value = work();
    this.keep(key, stamp, value);
    return value;
  }

  /** Keeps `value` as `key`'s at `stamp` (in place of one kept before). */
  keep(key: string, stamp: string, value: T): void {
    let kept = this.byStamp.get(stamp);
    if (!kept) {
      this.byStamp.set(stamp, (kept = new Map()));
      // The oldest stamp goes first: the data has moved on from it.
      if (this.byStamp.size > this.stamps) this.byStamp.delete(this.byStamp.keys().next().value!);
    }
    if (kept.size >= this.max && !kept.has(key)) kept.delete(kept.keys().next().value!);
    kept.set(key, value);
  }
}

/**
 * Totals by query. Counting the candidates of a big set against a condition is most of such a
 * search's time, and the page alone is cheap.
 */
export class KeptTotals extends KeptAtStamp<Total> {}

/**
 * The first posts of a query in its order, and its total, where finding any page took the whole
 * query: an order by a count ranks every candidate, and a query of sets too big to be walked is
 * evaluated whole. So the first pages are kept from one ask. `complete`: the ids are every match.
 */
export interface RankedHead extends Total {
  ids: number[];
  complete: boolean;
}

/** The posts of a query kept from one ask: five pages of 24. */
export const HEAD_POSTS = 120;

/** RankedHeads by query, at the stamp of the data version and the counts (a like moves it). */
export class KeptHeads extends KeptAtStamp<RankedHead> {
  protected override valueBytes(head: RankedHead): number {
    return objectBytes(4) + arrayBytes(head.ids.length);
  }
}
