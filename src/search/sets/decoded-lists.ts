/**
 * Id lists decoded for searches, kept for the next ones: one budget for every kind of set of a
 * process (tags, title words, uploaders), the least recently used dropped first. A process serves
 * one kind of search for a while and then another, so a budget a kind would sit idle half the time.
 */
export class DecodedLists {
  /** By owner and key (owner * 2^32 + key), the least recently used first. */
  private readonly lists = new Map<number, Int32Array>();
  private held = 0;
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

  /** Bytes of the lists kept for `owner`, or for every owner. */
  bytes(owner?: number): number {
    if (owner === undefined) return this.held;
    let sum = 0;
    for (const [k, ids] of this.lists) if (Math.floor(k / 2 ** 32) === owner) sum += ids.byteLength;
    return sum;
  }

  /** Keeps a list (at most a quarter of the budget), dropping the least recently used past the budget. */
  set(owner: number, key: number, ids: Int32Array): void {
    if (ids.byteLength > this.budget / 4) return;
    const k = owner * 2 ** 32 + key;
    this.drop(k);
    this.lists.set(k, ids);
    this.held += ids.byteLength;
    for (const [oldest, dropped] of this.lists) {
      if (this.held <= this.budget) break;
      this.lists.delete(oldest);
      this.held -= dropped.byteLength;
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
    this.held -= ids.byteLength;
  }
}
