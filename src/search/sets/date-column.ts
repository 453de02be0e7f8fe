import { widen } from '../../core/typed-arrays.ts';
import { readVarint, writeVarint } from './id-list.ts';

/** Dates a block: one kept whole, the others as the gaps from the one before. */
const BLOCK = 64;

/**
 * Dates (ms) in ascending order, compressed: blocks of BLOCK dates, each the first date whole and
 * the gaps after it as varints (7 bits a byte). A million posts over two years take ~3 MB
 * (gaps of about a minute: 3 bytes each) instead of 8 MB as doubles. Counting the dates below a
 * bound is a binary search over the blocks' first dates and a walk of one block.
 */
export class DateColumn {
  private firsts = new Float64Array(16);
  private starts = new Int32Array(16);
  private gaps = new Uint8Array(1024);
  private used = 0;
  private n = 0;
  private latest = -Infinity;

  /** From dates in descending order (the first `count` of `dates`). */
  static fromDescending(dates: ArrayLike<number>, count = dates.length): DateColumn {
    const column = new DateColumn();
    for (let i = count - 1; i >= 0; i--) column.push(dates[i]);
    column.trim();
    return column;
  }

  get length(): number {
    return this.n;
  }

  /** The latest date (-Infinity when empty). */
  get last(): number {
    return this.latest;
  }

  /** Bytes of the arrays held, room for more dates included (trimmed after a whole read). */
  bytes(): number {
    return this.firsts.byteLength + this.starts.byteLength + this.gaps.byteLength;
  }

  /** Adds a date no earlier than the last one. */
  push(date: number): void {
    if (date < this.latest) throw new Error('DateColumn takes dates in ascending order');
    const k = this.n++;
    if (k % BLOCK === 0) {
      const block = k / BLOCK;
      if (block === this.firsts.length) {
        this.firsts = widen(this.firsts, block * 2);
        this.starts = widen(this.starts, block * 2);
      }
      this.firsts[block] = date;
      this.starts[block] = this.used;
    } else {
      if (this.used + 8 > this.gaps.length) this.gaps = widen(this.gaps, this.gaps.length * 2);
      this.used = writeVarint(this.gaps, this.used, date - this.latest);
    }
    this.latest = date;
  }

  /** How many dates are below `bound` (or at most `bound`, when `inclusive`). */
  countBelow(bound: number, inclusive: boolean): number {
    const below = (d: number) => (inclusive ? d <= bound : d < bound);
    const blocks = Math.ceil(this.n / BLOCK);
    // Blocks whose first date is below: all but the last of them lie wholly below.
    let lo = 0;
    let hi = blocks;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (below(this.firsts[mid])) lo = mid + 1;
      else hi = mid;
    }
    if (lo === 0) return 0;
    const block = lo - 1;
    const size = Math.min(BLOCK, this.n - block * BLOCK);
    let date = this.firsts[block];
    const pos = { at: this.starts[block] };
    let count = 1;
    for (; count < size; count++) {
      date += readVarint(this.gaps, pos);
      if (!below(date)) break;
    }
    return block * BLOCK + count;
  }

  /** Every date, the latest first. */
  descending(): Float64Array {
    const out = new Float64Array(this.n);
    let i = this.n - 1;
    for (let block = 0; block * BLOCK < this.n; block++) {
      const size = Math.min(BLOCK, this.n - block * BLOCK);
      let date = this.firsts[block];
      const pos = { at: this.starts[block] };
      out[i--] = date;
      for (let k = 1; k < size; k++) {
        date += readVarint(this.gaps, pos);
        out[i--] = date;
      }
    }
    return out;
  }

  /** Gives back the room kept for more dates. */
  private trim(): void {
    const blocks = Math.ceil(this.n / BLOCK);
    this.firsts = this.firsts.slice(0, Math.max(blocks, 1));
    this.starts = this.starts.slice(0, Math.max(blocks, 1));
    this.gaps = this.gaps.slice(0, Math.max(this.used, 8));
  }
}
