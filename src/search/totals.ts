/** A total as a strategy gives it. */
export interface Total {
  total: number;
  estimated: boolean;
}

/**
 * Totals worked out at one state of the data, by query: a stamp names the state (the data
 * version, and the counts' own counter where counts are in the query). A total is given back only
 * at the stamp it was worked out at. The newest few stamps are kept (the sets strategy's and the
 * columns strategy's differ at the same moment), `max` totals each. Counting the candidates of a
 * big set against a condition is most of such a search's time, and the page alone is cheap.
 */
export class KeptTotals {
  private readonly byStamp = new Map<string, Map<string, Total>>();

  constructor(
    private readonly max = 2_000,
    private readonly stamps = 4,
  ) {}

  /** The total of `key` kept at `stamp`, if any. */
  peek(key: string, stamp: string): Total | undefined {
    return this.byStamp.get(stamp)?.get(key);
  }

  /** The kept total of `key` at `stamp`, or `work` done and kept. */
  of(key: string, stamp: string, work: () => Total): Total {
    const known = this.peek(key, stamp);
    if (known) return known;
    const total = work();
    let kept = this.byStamp.get(stamp);
    if (!kept) {
      this.byStamp.set(stamp, (kept = new Map()));
      // The oldest stamp goes first: the data has moved on from it.
      if (this.byStamp.size > this.stamps) this.byStamp.delete(this.byStamp.keys().next().value!);
    }
    if (kept.size >= this.max) kept.delete(kept.keys().next().value!);
    kept.set(key, total);
    return total;
  }
}
