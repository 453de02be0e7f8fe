import type { NameIndex } from './name-index.ts';

/** An item of a list searched by name: `slot` is its name's number in the NameIndex. */
export interface Named {
  slot: number;
}

export interface Found<T> {
  /** The page: names starting with the needle first, then the others, each in list order. */
  items: T[];
  /** Every match. */
  total: number;
}

/**
 * Substring search over a list (one order, or subset, of the names a NameIndex was built from),
 * answered from the index: the matches are marked by their position in the list in two bit sets,
 * those starting with the needle and the others, and only the requested page is read out of them.
 * A request costs the matches plus one bit per item of the list, whatever the page.
 */
export class NameSearch<T extends Named> {
  /** Name number -> position in the list, or -1 (built on the first search). */
  private positions?: Int32Array;
  private prefixBits?: Uint32Array;
  private innerBits?: Uint32Array;

  /** `index` gives the index the items' slots refer to (built on first use). */
  constructor(
    readonly items: T[],
    private readonly index: () => NameIndex,
  ) {}

  /** The page [offset, offset + limit) of the items whose name contains `needle`. */
  find(needle: string, offset: number, limit: number): Found<T> {
    if (needle === '') return { items: this.items.slice(offset, offset + limit), total: this.items.length };
    const index = this.index();
    const positions = this.positionsIn(index);
    const prefix = this.prefixBits!;
    const inner = this.innerBits!;
    let starting = 0;
    let others = 0;
    if (needle.length <= 3) {
      starting = mark(prefix, positions, index.startingWith(needle));
      const ids = index.containing(needle);
      for (let i = 0; i < ids.length; i++) {
        const at = positions[ids[i]];
        if (at >= 0 && (prefix[at >>> 5] & (1 << (at & 31))) === 0) {
          inner[at >>> 5] |= 1 << (at & 31);
          others++;
        }
      }
    } else {
      // The candidates hold one 3-character part of the needle: check each.
      const ids = index.containing(needle);
      for (let i = 0; i < ids.length; i++) {
        const at = positions[ids[i]];
        const name = index.names[ids[i]];
        if (at < 0 || !name.includes(needle)) continue;
        const bits = name.startsWith(needle) ? prefix : inner;
        bits[at >>> 5] |= 1 << (at & 31);
        if (bits === prefix) starting++;
        else others++;
      }
    }
    const items: T[] = [];
    if (offset < starting + others) {
      this.readOut(prefix, offset, limit, items);
      this.readOut(inner, Math.max(0, offset - starting), limit, items);
    }
    prefix.fill(0);
    inner.fill(0);
    return { items, total: starting + others };
  }

  private positionsIn(index: NameIndex): Int32Array {
    if (this.positions === undefined) {
      this.positions = new Int32Array(index.names.length).fill(-1);
      this.items.forEach((item, at) => (this.positions![item.slot] = at));
      this.prefixBits = new Uint32Array((this.items.length + 31) >>> 5);
      this.innerBits = new Uint32Array(this.prefixBits.length);
    }
    return this.positions;
  }

  /** Appends the items at the set bits, skipping the first `skip`, until `items` holds `limit`. */
  private readOut(bits: Uint32Array, skip: number, limit: number, items: T[]): void {
    for (let w = 0; w < bits.length && items.length < limit; w++) {
      let word = bits[w];
      if (word === 0) continue;
      const n = ones(word);
      if (skip >= n) {
        skip -= n;
        continue;
      }
      for (; word !== 0 && items.length < limit; word &= word - 1) {
        if (skip > 0) skip--;
        else items.push(this.items[(w << 5) + 31 - Math.clz32(word & -word)]);
      }
    }
  }
}

/** Sets the bits of the ids' positions (those in the list); returns how many. */
function mark(bits: Uint32Array, positions: Int32Array, ids: ArrayLike<number>): number {
  let n = 0;
  for (let i = 0; i < ids.length; i++) {
    const at = positions[ids[i]];
    if (at >= 0) {
      bits[at >>> 5] |= 1 << (at & 31);
      n++;
    }
  }
  return n;
}

/** Set bits in a 32-bit word. */
function ones(word: number): number {
  let x = word - ((word >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}
