/**
 * Post ids in an order (newest first), kept as runs of consecutive descending ids when they make
 * few runs, else as every id. Posts numbered in upload order make one run a stretch between
 * deletes: a million posts take a few bytes instead of 4 MB a process.
 */
export class IdSequence {
  private constructor(
    /** Every id, when not kept as runs. */
    private readonly plain: Int32Array | null,
    /** Per run: its first (highest) id, and how many ids the runs up to it hold. */
    private readonly starts: Int32Array,
    private readonly ends: Int32Array,
    readonly length: number,
    /** Whether the ids are strictly descending. */
    readonly descending: boolean,
  ) {}

  static of(ids: Int32Array): IdSequence {
    let runs = ids.length ? 1 : 0;
    let descending = true;
    for (let i = 1; i < ids.length; i++) {
      if (ids[i] >= ids[i - 1]) descending = false;
      if (ids[i] !== ids[i - 1] - 1) runs++;
    }
    if (!descending || !IdSequence.fewRuns(runs, ids.length)) return new IdSequence(ids, EMPTY, EMPTY, ids.length, descending);
    const starts = new Int32Array(runs);
    const ends = new Int32Array(runs);
    let r = -1;
    for (let i = 0; i < ids.length; i++) {
      if (i === 0 || ids[i] !== ids[i - 1] - 1) starts[++r] = ids[i];
      ends[r] = i + 1;
    }
    return new IdSequence(null, starts, ends, ids.length, true);
  }

  /** Runs are worth keeping while there are at most a quarter as many as ids (8 bytes a run against 4 an id). */
  private static fewRuns(runs: number, length: number): boolean {
    return runs * 4 <= Math.max(length, 64);
  }

  /** The ids of `block` (newest first), then these. */
  prepend(block: Int32Array): IdSequence {
    const runs = this.runsAfter(block);
    if (runs) return runs;
    const all = new Int32Array(block.length + this.length);
    all.set(block);
    for (let i = 0; i < this.length; i++) all[block.length + i] = this.at(i);
    return IdSequence.of(all);
  }

  /**
   * `block` then these as runs, when both are runs of descending ids above these and together
   * still few (the block's last run may continue into the first of these); else null.
   */
  private runsAfter(block: Int32Array): IdSequence | null {
    if (this.plain !== null || block.length === 0 || block[block.length - 1] <= (this.length ? this.starts[0] : -1)) return null;
    const head = IdSequence.of(block);
    const joins = this.length > 0 && block[block.length - 1] - 1 === this.starts[0] ? 1 : 0;
    const runs = head.starts.length + this.starts.length - joins;
    if (head.plain !== null || !IdSequence.fewRuns(runs, head.length + this.length)) return null;
    const starts = new Int32Array(runs);
    const ends = new Int32Array(runs);
    starts.set(head.starts);
    ends.set(head.ends);
    for (let r = joins; r < this.starts.length; r++) {
      starts[head.starts.length + r - joins] = this.starts[r];
      ends[head.starts.length + r - joins] = this.ends[r] + head.length;
    }
    if (joins) ends[head.starts.length - 1] = this.ends[0] + head.length;
    return new IdSequence(null, starts, ends, head.length + this.length, true);
  }

  /** The id at position `i` (0 <= i < length). */
  at(i: number): number {
    if (this.plain) return this.plain[i];
    let lo = 0;
    let hi = this.ends.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.ends[mid] > i) hi = mid;
      else lo = mid + 1;
    }
    return this.starts[lo] - (i - (lo > 0 ? this.ends[lo - 1] : 0));
  }

  /** Bytes of the arrays held (the runs' `EMPTY` is shared, and counts 0). */
  bytes(): number {
    return (this.plain?.byteLength ?? 0) + this.starts.byteLength + this.ends.byteLength;
  }

  /** The ids from position `from` up to `to` (clamped to the sequence). */
  slice(from: number, to: number): number[] {
    const out: number[] = [];
    for (let i = Math.max(0, from), end = Math.min(to, this.length); i < end; i++) out.push(this.at(i));
    return out;
  }

  /** Every id, in order. */
  toArray(): Int32Array {
    if (this.plain) return this.plain.slice();
    const out = new Int32Array(this.length);
    let i = 0;
    for (let r = 0; r < this.starts.length; r++) {
      const count = this.ends[r] - (r > 0 ? this.ends[r - 1] : 0);
      for (let k = 0; k < count; k++) out[i++] = this.starts[r] - k;
    }
    return out;
  }

  /** Sets the bit of every id in `bits` (32 ids a word; ids past its end are left out). */
  markIn(bits: Int32Array): void {
    const limit = bits.length * 32;
    const mark = (id: number) => {
      if (id < limit) bits[id >>> 5] |= 1 << (id & 31);
    };
    if (this.plain) {
      for (const id of this.plain) mark(id);
      return;
    }
    for (let r = 0; r < this.starts.length; r++) {
      const count = this.ends[r] - (r > 0 ? this.ends[r - 1] : 0);
      for (let id = this.starts[r], low = id - count; id > low; id--) mark(id);
    }
  }

  /** How many ids are higher than `id`, when descending. */
  countAbove(id: number): number {
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.at(mid) <= id) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}

const EMPTY = new Int32Array(0);
