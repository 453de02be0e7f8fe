/** A typed array's kind: what `widen` copies into. */
type Typed = Int32Array | Uint32Array | Float64Array | Uint8Array;

/** A copy of `a` with room for `length` elements (the ones past `a`'s end are zero). */
export function widen<T extends Typed>(a: T, length: number): T {
  const wider = new (a.constructor as new (n: number) => T)(length);
  wider.set(a);
  return wider;
}
