/** A typed array's kind: what `widen` copies into. */
type Typed = Int32Array | Uint32Array | Float64Array | Uint8Array;

/** A copy of `a` with room for `length` elements (the ones past `a`'s end are zero). */
export function widen<T extends Typed>(a: T, length: number): T {
  const wider = new (a.constructor as new (n: number) => T)(length);
  wider.set(a);
  return wider;
}

/** The number of set bits in a 32-bit word. */
export function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/** Whether `ids` (strictly descending) holds `id`: a binary search. */
export function containsDescending(ids: ArrayLike<number>, id: number): boolean {
  let lo = 0;
  let hi = ids.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const x = ids[mid];
    if (x === id) return true;
    if (x > id) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}
