import type { ServerResponse } from 'node:http';

/**
 * Large JSON answers written into buffers that are used again. A text of some 400 kB (a Danbooru
 * page of 200 posts) joined in memory, and then its bytes, are each a fresh memory mapping that
 * the kernel fills with zeroed pages on first touch and unmaps once collected; a buffer kept
 * mapped skips that work. A buffer is taken back once the answer has been handed to the socket
 * ('finish'). An answer cut short never gives its buffer back: the socket may still hold it.
 */
const KEEP = 4;
/** Smallest buffer made, so that pages of different sizes fit in the same ones. */
const MIN_BYTES = 512 * 1024;
/** Larger answers get a buffer of their own that is not kept. */
const MAX_KEPT_BYTES = 4 * 1024 * 1024;

const COMMA = 0x2c;
const OPEN = 0x5b;
const CLOSE = 0x5d;

export class BytePool {
  private readonly free: Buffer[] = [];

  /** How many buffers wait to be used again. */
  get kept(): number {
    return this.free.length;
  }

  /**
   * The JSON array of the given JSON texts, as bytes in a buffer of the pool, which it takes
   * back when `res` has finished.
   */
  jsonArray(items: readonly string[], res: ServerResponse): Buffer {
    let size = 2 + Math.max(0, items.length - 1);
    for (const item of items) size += Buffer.byteLength(item);
    const buffer = this.take(size);
    buffer[0] = OPEN;
    let at = 1;
    for (let i = 0; i < items.length; i++) {
      if (i > 0) buffer[at++] = COMMA;
      at += buffer.write(items[i], at);
    }
    buffer[at++] = CLOSE;
    if (buffer.length <= MAX_KEPT_BYTES) res.once('finish', () => this.give(buffer));
    return buffer.subarray(0, at);
  }

  private take(size: number): Buffer {
    const i = this.free.findIndex((b) => b.length >= size);
    if (i >= 0) return this.free.splice(i, 1)[0];
    return Buffer.allocUnsafeSlow(size > MAX_KEPT_BYTES ? size : Math.max(MIN_BYTES, 2 ** Math.ceil(Math.log2(size))));
  }

  private give(buffer: Buffer): void {
    if (this.free.length < KEEP) this.free.push(buffer);
  }
}
