import { widen } from '../../core/typed-arrays.ts';

/**
 * A list this long gets a skip entry every SKIP_EVERY ids (the id and where the next gap starts), so
 * that a walk testing a few posts spread over every id (`user:NAME tag`) jumps through the list
 * instead of decoding it whole: 8 bytes a 128 ids, under 2% of a list's bytes.
 */
const SKIP_EVERY = 128;
const SKIP_FROM = 8 * SKIP_EVERY;

/**
 * Sets of post ids kept compressed in memory, each highest first: the first id, then each gap
 * down to the next one, as varints (7 bits a byte, the high bit set on every byte but a number's
 * last). A tag of 1,400 posts among a million takes ~2 bytes a post (a bitmap: 125 KB whatever its
 * size), one of 30 posts ~3 bytes a post.
 *
 * Many lists share chunks of bytes, found by their number (`add` gives it): tens of thousands of
 * small lists would otherwise each carry an array object of their own (~100 bytes, as much as a
 * list of 30 posts). A list never spans two chunks; one larger than a chunk gets its own.
 */
export class IdLists {
  private readonly chunks: Uint8Array[] = [];
  private used = 0;
  /** Per list: its chunk, where it starts and ends there, and how many ids it holds. */
  private chunkOf = new Int32Array(64);
  private startOf = new Int32Array(64);
  private endOf = new Int32Array(64);
  private sizes = new Int32Array(64);
  /** Per list: its first skip entry (its last is the next list's first, less one); the entries' ids and byte positions. */
  private skipFrom = new Int32Array(64);
  private skipIds = new Int32Array(64);
  private skipAt = new Int32Array(64);
  private skips = 0;
  private n = 0;
  /** Bytes taken by the lists themselves. */
  encoded = 0;

  constructor(private readonly chunkSize = 1 << 20) {}

  /** How many lists there are. */
  get count(): number {
    return this.n;
  }

  /** Adds a list of ids in strictly descending order; gives its number. */
  add(ids: ArrayLike<number>): number {
    let length = 0;
    for (let i = 0; i < ids.length; i++) length += varintLength(i === 0 ? ids[0] : ids[i - 1] - ids[i]);
    const chunk = this.room(length);
    const k = this.n++;
    if (k === this.sizes.length) this.grow();
    this.chunkOf[k] = this.chunks.length - 1;
    this.startOf[k] = this.used;
    let at = this.used;
    const skipping = ids.length >= SKIP_FROM;
    this.skipFrom[k] = this.skips;
    for (let i = 0; i < ids.length; i++) {
      at = writeVarint(chunk, at, i === 0 ? ids[0] : ids[i - 1] - ids[i]);
      if (skipping && (i + 1) % SKIP_EVERY === 0 && i + 1 < ids.length) this.skipEntry(ids[i], at);
    }
    this.used = at;
    this.endOf[k] = at;
    this.sizes[k] = ids.length;
    this.encoded += length;
    return k;
  }

  /** Bytes held: the chunks (room left in the last one included) and the arrays saying where each list is. */
  bytes(): number {
    let sum = this.chunkOf.byteLength + this.startOf.byteLength + this.endOf.byteLength + this.sizes.byteLength;
    sum += this.skipFrom.byteLength + this.skipIds.byteLength + this.skipAt.byteLength;
    for (const chunk of this.chunks) sum += chunk.byteLength;
    return sum;
  }

  /** How many ids list `k` holds. */
  size(k: number): number {
    return this.sizes[k];
  }

  /**
   * Writes list `k`'s ids into `out` (room for size(k) of them), highest first: one loop over
   * its bytes, with no call or object for each id.
   */
  decode(k: number, out: Int32Array): void {
    this.read(k, out, null, null);
  }

  /** List `k`'s ids from the highest down, read as they are asked for: a walk that stops early decodes no further. */
  reader(k: number): IdReader {
    const to = k + 1 < this.n ? this.skipFrom[k + 1] : this.skips;
    return new IdReader(this.chunks[this.chunkOf[k]], this.startOf[k], this.endOf[k], this.skipIds, this.skipAt, this.skipFrom[k], to);
  }

  /**
   * Sets the bits of list `k`'s ids in `bits`, but of those whose bit is set in `skip` (stale
   * posts); ids past the bitmap's end are left out. The ids are never written out as a list.
   */
  mark(k: number, bits: Int32Array, skip: Int32Array | null): void {
    this.read(k, null, bits, skip);
  }

  /** The varint loop of decode (into `out`) and mark (into `bits`). */
  private read(k: number, out: Int32Array | null, bits: Int32Array | null, skip: Int32Array | null): void {
    const bytes = this.chunks[this.chunkOf[k]];
    const end = this.endOf[k];
    let at = this.startOf[k];
    let last = 0;
    for (let n = 0; at < end; n++) {
      let b = bytes[at++];
      let x = b & 127;
      for (let shift = 7; b >= 128; shift += 7) {
        b = bytes[at++];
        x |= (b & 127) << shift;
      }
      last = n === 0 ? x : last - x;
      if (out !== null) out[n] = last;
      else {
        const w = last >>> 5;
        const bit = 1 << (last & 31);
        if (w < bits!.length && (skip === null || (skip[w] & bit) === 0)) bits![w] |= bit;
      }
    }
  }

  /** Gives the last chunk back down to the bytes it holds (once every list is added). */
  trim(): void {
    const last = this.chunks.length - 1;
    if (last >= 0 && this.used < this.chunks[last].length) this.chunks[last] = this.chunks[last].slice(0, this.used);
  }

  /** The chunk a list of `length` bytes goes in: the current one if it has room, else a new one. */
  private room(length: number): Uint8Array {
    const last = this.chunks[this.chunks.length - 1];
    if (last && this.used + length <= last.length) return last;
    const chunk = new Uint8Array(Math.max(this.chunkSize, length));
    this.chunks.push(chunk);
    this.used = 0;
    return chunk;
  }

  private skipEntry(id: number, at: number): void {
    if (this.skips === this.skipIds.length) {
      this.skipIds = widen(this.skipIds, this.skips * 2);
      this.skipAt = widen(this.skipAt, this.skips * 2);
    }
    this.skipIds[this.skips] = id;
    this.skipAt[this.skips++] = at;
  }

  private grow(): void {
    const length = this.sizes.length * 2;
    this.chunkOf = widen(this.chunkOf, length);
    this.startOf = widen(this.startOf, length);
    this.endOf = widen(this.endOf, length);
    this.sizes = widen(this.sizes, length);
    this.skipFrom = widen(this.skipFrom, length);
  }
}

/** One list's ids from the highest down, one a call to next(); -1 once there are no more. */
export class IdReader {
  private last = -1;

  constructor(
    private readonly bytes: Uint8Array,
    private at: number,
    private readonly end: number,
    private readonly skipIds: Int32Array = NO_SKIPS,
    private readonly skipAt: Int32Array = NO_SKIPS,
    /** The first skip entry not yet passed, and the end of the list's entries. */
    private entry = 0,
    private readonly entries = 0,
  ) {}

  /**
   * Skips whole blocks of ids above `id`: moves to the last skip entry still above it (past where
   * the reader is) and gives that entry's id, which next() then reads on from; `current` (the id
   * read last) when no entry lies between.
   */
  skip(id: number, current: number): number {
    const { skipIds, skipAt, at } = this;
    let low = this.entry;
    while (low < this.entries && skipAt[low] <= at) low++;
    this.entry = low;
    if (low >= this.entries || skipIds[low] <= id) return current;
    // The last entry above `id`: entries' ids fall as their positions grow.
    let high = this.entries - 1;
    while (low < high) {
      const mid = (low + high + 1) >>> 1;
      if (skipIds[mid] > id) low = mid;
      else high = mid - 1;
    }
    this.at = skipAt[low];
    this.last = skipIds[low];
    this.entry = low + 1;
    return this.last;
  }

  next(): number {
    if (this.at >= this.end) return -1;
    const bytes = this.bytes;
    let b = bytes[this.at++];
    let x = b & 127;
    for (let shift = 7; b >= 128; shift += 7) {
      b = bytes[this.at++];
      x |= (b & 127) << shift;
    }
    // The first number is the highest id itself, each after it the gap down to the next.
    this.last = this.last < 0 ? x : this.last - x;
    return this.last;
  }
}

const NO_SKIPS = new Int32Array(0);

/** Bytes the varint of `x` (>= 0) takes. */
export function varintLength(x: number): number {
  return x < 1 << 7 ? 1 : x < 1 << 14 ? 2 : x < 1 << 21 ? 3 : x < 1 << 28 ? 4 : 5;
}

/**
 * Writes `x` (a whole number >= 0, up to 2^53) at `at` as a varint: 7 bits a byte, lowest first,
 * the high bit set on every byte but the last. Gives the position after it.
 */
export function writeVarint(bytes: Uint8Array, at: number, x: number): number {
  while (x >= 128) {
    bytes[at++] = (x % 128) | 128;
    x = Math.floor(x / 128);
  }
  bytes[at++] = x;
  return at;
}

/** Reads the varint at `pos.at` (written by writeVarint) and moves `pos.at` past it. */
export function readVarint(bytes: Uint8Array, pos: { at: number }): number {
  let x = 0;
  let scale = 1;
  let b: number;
  do {
    b = bytes[pos.at++];
    x += (b & 127) * scale;
    scale *= 128;
  } while (b >= 128);
  return x;
}
