/**
 * Reads the header block of every part of a multipart body as the bytes stream past, and names the
 * first part that has no usable Content-Disposition.
 *
 * busboy skips such a part (no Content-Disposition, or one that is not form-data) without a word,
 * and @fastify/busboy 3.2.6 can then stall for good: the skipped part is read without a 'data'
 * listener, so when its content arrives in one write larger than the part's 16 KiB buffer together
 * with the closing boundary, Dicer waits for a read that never comes and the request is never
 * answered. This check sees each chunk before busboy does, so formParts can refuse the body at
 * once, whatever busboy does with it.
 *
 * It reads the header lines as busboy's HeaderParser does (same limits, a malformed line ends the
 * block) and is at least as strict as busboy's test of the disposition: every part busboy would
 * skip is named here. A nameless form-data part is busboy's to report (it hands it over unnamed).
 */

/** Header lines of one part that busboy reads; past them the rest is ignored. */
export const PART_HEADER_PAIRS = 100;
/** Bytes of one part's header block that busboy keeps (its default). */
export const PART_HEADER_BYTES = 80 * 1024;

const NEEDS = 'each part needs Content-Disposition: form-data; name="..."';
const CRLF2 = '\r\n\r\n';
const DASH = 0x2d;
const EMPTY = Buffer.alloc(0);

type Mode = 'preamble' | 'delimiter' | 'headers' | 'body' | 'done';

/** The header lines of a block, as busboy's HeaderParser reads them: names lower-cased, values in order. */
export function headerLines(block: string, maxPairs = PART_HEADER_PAIRS): Map<string, string[]> {
  const header = new Map<string, string[]>();
  let name: string | undefined;
  let pairs = 0;
  let start = 0;
  while (start < block.length) {
    let end = block.indexOf('\r\n', start);
    if (end === -1) end = block.length;
    if (end === start) {
      start = end + 2;
      continue;
    }
    const line = block.slice(start, end);
    if (line.includes('\r') || line.includes('\n')) break;
    if ((line[0] === ' ' || line[0] === '\t') && name !== undefined) {
      const values = header.get(name)!;
      values[values.length - 1] += line; // a folded line continues the one before
      start = end + 2;
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) break;
    name = line.slice(0, colon).toLowerCase();
    let value = line.slice(colon + 1);
    if (value[0] === ' ' || value[0] === '\t') value = value.slice(1);
    if (!header.has(name)) header.set(name, []);
    header.get(name)!.push(value);
    if (++pairs === maxPairs) break;
    start = end + 2;
  }
  return header;
}

/**
 * The disposition type as busboy compares it to form-data: the whole value when it has no
 * parameters, else what comes before the first ';' without blanks. null when quoted (busboy's
 * reading of quotes is its own; such a value is refused rather than guessed at).
 */
function dispositionType(value: string): string | null {
  const semi = value.indexOf(';');
  if (semi === -1) return value;
  const first = value.slice(0, semi);
  return first.includes('"') ? null : first.replace(/[ \t]/g, '');
}

/** Why a part with this header block cannot be read as a form field, or null if it can. */
export function partProblem(block: string, maxPairs = PART_HEADER_PAIRS): string | null {
  const disposition = headerLines(block, maxPairs).get('content-disposition')?.[0];
  if (disposition === undefined) return `A multipart part has no Content-Disposition: ${NEEDS}`;
  const type = dispositionType(disposition);
  if (type === null || !/^form-data$/i.test(type)) {
    const shown = type !== null && /^[\w!#$&^.+-]{1,40}$/.test(type) ? `Content-Disposition '${type}'` : 'a Content-Disposition that is not form-data';
    return `A multipart part has ${shown}: ${NEEDS}`;
  }
  // busboy also skips a part whose name or filename decodes to a line break (name*=utf-8''a%0Ab).
  for (const param of disposition.split(';').slice(1)) {
    const eq = param.indexOf('=');
    if (eq !== -1 && param.slice(0, eq).includes('*') && /%0[ad]/i.test(param.slice(eq))) {
      return 'A multipart part has a line break in its name or filename';
    }
  }
  return null;
}

export class PartHeaderCheck {
  /** Why the body is refused: the first part without a usable Content-Disposition. */
  problem: string | null = null;
  private readonly delimiter: Buffer;
  private mode: Mode = 'preamble';
  /** Bytes held back because they may begin a delimiter. busboy reads the body as if it began with CRLF. */
  private pending: Buffer = Buffer.from('\r\n');
  private dashes = 0;
  /** The current header block, up to maxBytes; its last 3 bytes; how many bytes it has had. */
  private head = '';
  private tail = '';
  private seen = 0;

  constructor(
    boundary: string,
    private readonly maxPairs = PART_HEADER_PAIRS,
    private readonly maxBytes = PART_HEADER_BYTES,
  ) {
    this.delimiter = Buffer.from(`\r\n--${boundary}`, 'latin1');
  }

  /** Whether nothing more needs reading: a part was refused, or the closing boundary has passed. */
  get finished(): boolean {
    return this.problem !== null || this.mode === 'done';
  }

  push(chunk: Buffer): void {
    if (this.finished) return;
    let buf = chunk;
    let at = 0;
    if (this.pending.length > 0) {
      if ((this.mode === 'body' || this.mode === 'preamble') && chunk.length >= this.delimiter.length) {
        // Content is not kept: only a delimiter that begins in the held-back bytes matters, and
        // copying every chunk of a large file behind them would cost more than the search.
        const join = Buffer.concat([this.pending, chunk.subarray(0, this.delimiter.length - 1)]);
        const found = join.indexOf(this.delimiter);
        if (found !== -1 && found < this.pending.length) {
          at = found + this.delimiter.length - this.pending.length;
          this.mode = 'delimiter';
        }
      } else buf = Buffer.concat([this.pending, chunk]);
      this.pending = EMPTY;
    }
    for (;;) {
      if (this.mode === 'delimiter') {
        // After a delimiter: '--' closes the body; anything else begins a part's headers.
        while (this.dashes < 2 && at < buf.length && buf[at] === DASH) {
          this.dashes++;
          at++;
        }
        if (this.dashes === 2) {
          this.mode = 'done';
          return;
        }
        if (at === buf.length) return;
        this.startPart(this.dashes === 1 ? '-' : '');
      }
      const found = buf.indexOf(this.delimiter, at);
      if (found === -1) {
        const keep = Math.max(at, buf.length - (this.delimiter.length - 1));
        this.content(buf.subarray(at, keep), false);
        this.pending = Buffer.from(buf.subarray(keep));
        return;
      }
      this.content(buf.subarray(at, found), true);
      if (this.problem !== null) return;
      at = found + this.delimiter.length;
      this.mode = 'delimiter';
    }
  }

  private startPart(prefix: string): void {
    this.mode = 'headers';
    this.dashes = 0;
    this.head = this.tail = '';
    this.seen = 0;
    if (prefix) this.headerBytes(prefix, false);
  }

  /** Bytes of the current part up to (`ended`) a delimiter or up to what is known so far. */
  private content(bytes: Buffer, ended: boolean): void {
    if (this.mode !== 'headers') return;
    this.headerBytes(bytes.toString('latin1'), ended);
  }

  private headerBytes(text: string, ended: boolean): void {
    const search = this.tail + text;
    const end = search.indexOf(CRLF2);
    if (end === -1) {
      this.head += text.slice(0, this.maxBytes - this.head.length);
      this.tail = search.slice(-3);
      this.seen += text.length;
      // A delimiter before the blank line: the part has no complete header block (busboy ignores it).
      if (ended) this.problem = partProblem(this.head, this.maxPairs) ?? 'A multipart part has no blank line after its headers';
      return;
    }
    const length = this.seen - this.tail.length + end;
    const block = (this.head + text.slice(0, this.maxBytes - this.head.length)).slice(0, Math.min(length, this.maxBytes));
    this.problem = partProblem(block, this.maxPairs);
    this.mode = 'body';
  }
}
