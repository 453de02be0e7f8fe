import type { ServerResponse } from 'node:http';

/**
 * Large JSON answers written into buffers that are used again. A text of some 400 kB (a Danbooru
 * page of 200 posts) joined in memory, and then its bytes, are each a fresh memory mapping that
 * the kernel fills with zeroed pages on first touch and unmaps once collected; a buffer kept
 * mapped skips that work. A buffer is taken back once its answer has been handed to the socket:
 * at once when the socket took it whole as it was sent (the kernel has copied it), else when the
 * answer has finished. An answer cut short never gives its buffer back: the socket may still hold it.
 */
const KEEP = 4;
/** Smallest buffer made, so that pages of different sizes fit in the same ones. */
const MIN_BYTES = 512 * 1024;
/** Larger answers get a buffer of their own that is not kept. */
const MAX_KEPT_BYTES = 4 * 1024 * 1024;

export class BytePool {
  private readonly free: Buffer[] = [];
  /** The memory of the buffers it made, so a view of one can be given back (release). */
  private readonly made = new WeakSet<ArrayBufferLike>();

  /** `min`: the smallest buffer it makes; `keep`: how many it keeps. */
  constructor(
    private readonly min = MIN_BYTES,
    private readonly keep = KEEP,
  ) {}

  /** How many buffers wait to be used again. */
  get kept(): number {
    return this.free.length;
  }

  /** JSON that `write` writes, as bytes in a buffer of the pool: send them, then give them back with `release`. */
  json(write: (w: JsonWriter) => void): Buffer {
    const w = new JsonWriter(this.take(this.min), this);
    write(w);
    return w.buffer.subarray(0, w.at);
  }

  /** A buffer of at least `size` bytes: a kept one when one is large enough. */
  take(size: number): Buffer {
    const i = this.free.findIndex((b) => b.length >= size);
    if (i >= 0) return this.free.splice(i, 1)[0];
    const made = Buffer.allocUnsafeSlow(size > MAX_KEPT_BYTES ? size : Math.max(this.min, 2 ** Math.ceil(Math.log2(size))));
    this.made.add(made.buffer);
    return made;
  }

  /** Takes back a buffer nothing reads any more. */
  give(buffer: Buffer): void {
    if (this.free.length < this.keep && buffer.length <= MAX_KEPT_BYTES) this.free.push(buffer);
  }

  /**
   * Takes back the buffer that `bytes` lies in, when this pool made it (JsonWriter's), once `res`,
   * which sent them, no longer needs it. Call it after sending. While pages are written one after
   * another in one turn (requests that came together), 'finish' comes only after the last of
   * them: taken back only then, each would have had a buffer of its own (up to 14 MB more RSS a
   * process at 64 connections with Danbooru's pages).
   */
  release(res: ServerResponse, bytes: Uint8Array): void {
    const memory = bytes.buffer;
    if (!this.made.has(memory)) return;
    // The socket took the whole answer as it was sent: nothing refers to the bytes any more.
    if (res.writableEnded && res.writableLength === 0) this.give(Buffer.from(memory));
    else res.once('finish', () => this.give(Buffer.from(memory)));
  }
}

/**
 * Writes JSON as bytes, piece by piece, into a buffer that grows (from a BytePool when given one).
 * Nothing is made on the JS heap for a piece in the common case: a page of 200 Danbooru posts built
 * as texts and joined made some 1.9 MB of short-lived strings a request, and the collections of
 * them (and of the page's texts they caught half-built and kept) were a fifth of its time.
 */
export class JsonWriter {
  /** Where the next byte goes. */
  at = 0;

  constructor(
    public buffer: Buffer = Buffer.allocUnsafe(4096),
    private readonly pool?: BytePool,
  ) {}

  /** Makes room for `n` more bytes. */
  room(n: number): void {
    if (this.at + n <= this.buffer.length) return;
    const size = Math.max(2 * this.buffer.length, this.at + n);
    const next = this.pool ? this.pool.take(size) : Buffer.allocUnsafe(size);
    this.buffer.copy(next, 0, 0, this.at);
    this.pool?.give(this.buffer);
    this.buffer = next;
  }

  /** One ASCII character, by its code. */
  byte(code: number): void {
    this.room(1);
    this.buffer[this.at++] = code;
  }

  /** Text written as it is: JSON punctuation and names, ASCII only (the caller's constants). */
  raw(text: string): void {
    this.room(text.length);
    const b = this.buffer;
    let at = this.at;
    for (let i = 0; i < text.length; i++) b[at++] = text.charCodeAt(i);
    this.at = at;
  }

  /**
   * Bytes made beforehand (asciiBytes): a constant piece of many objects. Copying bytes is several
   * times cheaper than reading a text's characters one by one; short ones are copied in a loop,
   * which costs less than the call that copies a long one.
   */
  bytes(piece: Uint8Array): void {
    this.room(piece.length);
    if (piece.length >= 16) {
      this.buffer.set(piece, this.at);
      this.at += piece.length;
      return;
    }
    const b = this.buffer;
    let at = this.at;
    for (let i = 0; i < piece.length; i++) b[at++] = piece[i];
    this.at = at;
  }

  /** Bytes `start` to `end` of `source` (a part of bytes kept elsewhere, with no view of it made). */
  copy(source: Buffer, start: number, end: number): void {
    this.room(end - start);
    this.at += source.copy(this.buffer, this.at, start, end);
  }

  /** A number as JSON writes it; whole numbers digit by digit. */
  number(n: number): void {
    if (!Number.isSafeInteger(n)) {
      this.raw(JSON.stringify(n));
      return;
    }
    this.room(17);
    const b = this.buffer;
    if (n < 0) {
      b[this.at++] = MINUS;
      n = -n;
    }
    let digits = 1;
    for (let rest = n; rest >= 10; rest = Math.floor(rest / 10)) digits++;
    let at = this.at + digits;
    this.at = at;
    do {
      const q = Math.floor(n / 10);
      b[--at] = ZERO + (n - q * 10);
      n = q;
    } while (n > 0);
  }

  /** A number, or null. */
  numberOrNull(n: number | null | undefined): void {
    if (n === null || n === undefined) this.bytes(NULL);
    else this.number(n);
  }

  /** A JSON string, or null. */
  stringOrNull(text: string | null | undefined): void {
    if (text === null || text === undefined) this.bytes(NULL);
    else this.string(text);
  }

  boolean(value: boolean): void {
    this.bytes(value ? TRUE : FALSE);
  }

  /** A JSON string. */
  string(text: string): void {
    this.byte(QUOTE);
    this.inString(text);
    this.byte(QUOTE);
  }

  /**
   * Text inside a JSON string (its quotes written apart): ASCII that needs no escape is copied
   * as it is; other text is written as JSON.stringify writes it. Long text is checked by a
   * regular expression and encoded by Buffer's own code, which is several times faster than
   * going through it a character at a time.
   */
  inString(text: string): void {
    this.inStringIn(text, 0, text.length);
  }

  /** The part of `text` from `start` to `end` as a JSON string (stringIn of a row's field: no text cut out unless long or escaped). */
  stringIn(text: string, start: number, end: number): void {
    this.byte(QUOTE);
    this.inStringIn(text, start, end);
    this.byte(QUOTE);
  }

  /** The part of `text` from `start` to `end` inside a JSON string, as inString writes a text. */
  inStringIn(text: string, start: number, end: number): void {
    if (end - start >= LONG) {
      // A slice of the whole text is the text itself.
      const part = text.slice(start, end);
      if (!NEEDS_CARE.test(part)) {
        this.room(3 * part.length);
        this.at += this.buffer.write(part, this.at);
      } else this.escaped(part);
      return;
    }
    this.room(end - start);
    const b = this.buffer;
    let at = this.at;
    for (let i = start; i < end; i++) {
      const c = text.charCodeAt(i);
      if (c < 0x20 || c === QUOTE || c === BACKSLASH || c >= 0x80) {
        this.escaped(text.slice(start, end));
        return;
      }
      b[at++] = c;
    }
    this.at = at;
  }

  /** Text inside a JSON string as JSON.stringify writes it (its quotes cut off). */
  private escaped(text: string): void {
    const json = JSON.stringify(text);
    const start = this.at;
    this.room(Buffer.byteLength(json));
    this.at += this.buffer.write(json, this.at) - 2;
    // The quotes JSON.stringify added are cut off: its text is shifted one byte left.
    this.buffer.copyWithin(start, start + 1, this.at + 1);
  }

  /** JSON text written as it is (a value a caller made with JSON.stringify). */
  json(text: string): void {
    this.room(Buffer.byteLength(text));
    this.at += this.buffer.write(text, this.at);
  }

  /** Writes again the bytes from `start` to `end` written before (a URL a post gives twice). */
  again(start: number, end: number): void {
    this.room(end - start);
    this.buffer.copyWithin(this.at, start, end);
    this.at += end - start;
  }
}

/** A text's bytes, made once, for JsonWriter.bytes (ASCII: one byte a character). */
export function asciiBytes(text: string): Uint8Array {
  if (Buffer.byteLength(text) !== text.length) throw new Error(`not ASCII: ${text}`);
  return Buffer.from(text, 'latin1');
}

/** From this length up, a string is checked and encoded by native code (inString). */
const LONG = 24;
/**
 * What JSON.stringify escapes (controls, quote, backslash) and the surrogates, which it writes
 * as escapes when alone; text with any of them takes the careful path.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what it looks for.
const NEEDS_CARE = /["\\\u0000-\u001f\ud800-\udfff]/;

const NULL = asciiBytes('null');
const TRUE = asciiBytes('true');
const FALSE = asciiBytes('false');
const MINUS = 0x2d;
const ZERO = 0x30;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
