/**
 * Id lists decoded for searches, kept for the next ones: one budget for every kind of set of a
 * process (tags, title words, uploaders), the least recently used dropped first. A process serves
 * one kind of search for a while and then another, so a budget a kind would sit idle half the time.
 */
export class DecodedLists {
  /** By owner and key (owner * 2^32 + key), the least recently used first. */
  private readonly lists = new Map<number, Int32Array>();
  private bytes = 0;
  private owners = 0;

  constructor(private readonly budget: number) {}

  /** A number of its own for a kind of set: its keys here do not meet another's. */
  owner(): number {
    return this.owners++;
  }

  get(owner: number, key: number): Int32Array | undefined {
    const k = owner * 2 ** 32 + key;
    const ids = this.lists.get(k);
    if (ids) {
      this.lists.delete(k);
      this.lists.set(k, ids);
    }
    return ids;
  }

  /** Keeps a list (at most a quarter of the budget), dropping the least recently used past the budget. */
  set(owner: number, key: number, ids: Int32Array): void {
    if (ids.byteLength > this.budget / 4) return;
    const k = owner * 2 ** 32 + key;
    this.drop(k);
    this.lists.set(k, ids);
    this.bytes += ids.byteLength;
    for (const [oldest, dropped] of this.lists) {
      if (this.bytes <= this.budget) break;
      this.lists.delete(oldest);
      this.bytes -= dropped.byteLength;
    }
  }

  /** Drops an owner's lists of `keys`, or all of its lists. */
  forget(owner: number, keys?: Iterable<number>): void {
    if (keys) for (const key of keys) this.drop(owner * 2 ** 32 + key);
    else for (const k of [...this.lists.keys()]) if (Math.floor(k / 2 ** 32) === owner) this.drop(k);
  }

  private drop(k: number): void {
    const ids = this.lists.get(k);
    if (!ids) return;
    this.lists.delete(k);
    this.bytes -= ids.byteLength;
  }
}
