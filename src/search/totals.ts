/** A total as a strategy gives it. */
export interface Total {
  total: number;
  estimated: boolean;
}

/**
 * Totals worked out at one state of the data, by query: a stamp names the state (the data
 * version, and the counts' own counter where counts are in the query). A total is given back only
 * at the stamp it was worked out at; a new stamp drops them all, as the data moved on. Counting
 * the candidates of a big set against a condition on counts is most of such a search's time,
 * and the page alone is cheap.
 */
export class KeptTotals {
  private stamp = '';
  private readonly map = new Map<string, Total>();

  constructor(private readonly max = 2_000) {}

  /** The total of `key` kept at `stamp`, if any. */
  peek(key: string, stamp: string): Total | undefined {
    return stamp === this.stamp ? this.map.get(key) : undefined;
  }

  /** The kept total of `key` at `stamp`, or `work` done and kept. */
  of(key: string, stamp: string, work: () => Total): Total {
    if (stamp === this.stamp) {
      const known = this.map.get(key);
      if (known) return known;
    }
    const total = work();
    if (stamp !== this.stamp) {
      this.map.clear();
      this.stamp = stamp;
    }
    if (this.map.size >= this.max) this.map.delete(this.map.keys().next().value!);
    this.map.set(key, total);
    return total;
  }
}
