/**
 * A set of post ids kept compressed in memory, highest first: the first id, then each gap down
 * to the next one, as varints (7 bits a byte, the high bit set on every byte but a number's last).
 * A tag of 1,400 posts among a million takes ~2 bytes a post (a bitmap: 125 KB whatever its size).
 */
export class IdList {
  private constructor(readonly bytes: Uint8Array, readonly size: number) {}

  static readonly EMPTY = new IdList(new Uint8Array(0), 0);

  /** From ids in strictly descending order. */
  static fromDescending(ids: ArrayLike<number>): IdList {
    let length = 0;
    for (let i = 0; i < ids.length; i++) length += varintLength(i === 0 ? ids[0] : ids[i - 1] - ids[i]);
    const bytes = new Uint8Array(length);
    let at = 0;
    for (let i = 0; i < ids.length; i++) {
      let x = i === 0 ? ids[0] : ids[i - 1] - ids[i];
      while (x >= 128) {
        bytes[at++] = (x & 127) | 128;
        x >>>= 7;
      }
      bytes[at++] = x;
    }
    return new IdList(bytes, ids.length);
  }

  /** Reads the ids from the highest. */
  reader(): IdReader {
    return new IdReader(this.bytes);
  }
}

/** Reads an IdList from its highest id down: next() gives -1 past the lowest. */
export class IdReader {
  private at = 0;
  private last = -1;

  constructor(private readonly bytes: Uint8Array) {}

  next(): number {
    const bytes = this.bytes;
    if (this.at >= bytes.length) return -1;
    let x = 0;
    let shift = 0;
    let b: number;
    do {
      b = bytes[this.at++];
      x |= (b & 127) << shift;
      shift += 7;
    } while (b >= 128);
    // The first number is the highest id; each after it, the gap down from the one before.
    this.last = this.last < 0 ? x : this.last - x;
    return this.last;
  }
}

function varintLength(x: number): number {
  return x < 1 << 7 ? 1 : x < 1 << 14 ? 2 : x < 1 << 21 ? 3 : x < 1 << 28 ? 4 : 5;
}
