/**
 * Substring search over a list of names, in the list's order: the names are joined into one
 * string, which the engine's string search scans far faster than testing each name in turn (50,000
 * tags: ~0.2 ms instead of ~4 ms). Names never contain a newline, the separator.
 */
export class NameSearch<T extends { name: string }> {
  private readonly joined: string;
  private readonly starts: Int32Array;

  constructor(readonly items: T[]) {
    this.starts = new Int32Array(items.length + 1);
    let at = 0;
    items.forEach((item, i) => {
      this.starts[i] = at;
      at += item.name.length + 1;
    });
    this.starts[items.length] = at;
    this.joined = items.map((i) => i.name).join('\n');
  }

  /** Items whose name contains `needle`, in list order: those starting with it first. */
  find(needle: string): T[] {
    const prefix: T[] = [];
    const inner: T[] = [];
    if (needle === '' || needle.includes('\n')) return needle === '' ? [...this.items] : [];
    let item = 0;
    for (let at = this.joined.indexOf(needle); at !== -1; at = this.joined.indexOf(needle, at + 1)) {
      item = this.itemAt(at, item);
      (at === this.starts[item] ? prefix : inner).push(this.items[item]);
      // Go on from the next name: each name is found once.
      at = this.starts[item + 1] - 1;
    }
    return prefix.concat(inner);
  }

  /** The item whose name holds character `at` (binary search from `from` on). */
  private itemAt(at: number, from: number): number {
    let lo = from;
    let hi = this.items.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.starts[mid] <= at) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}
