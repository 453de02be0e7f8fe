import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Busboy } from '@fastify/busboy';
import { mulberry } from '../../test/prng.ts';
import { PartHeaderCheck, partProblem } from './multipart-headers.ts';

const B = 'b0und';

const body = (headers: string[], content = 'x'.repeat(40)) =>
  Buffer.from(
    `preamble\r\n--${B}\r\nContent-Disposition: form-data; name="a"\r\n\r\nfirst\r\n--${B}\r\n${headers.join('\r\n')}\r\n\r\n${content}\r\n--${B}--\r\nepilogue`,
    'latin1',
  );

/** The check's verdict on a body sent in these pieces. */
function verdict(pieces: Buffer[]): string | null {
  const check = new PartHeaderCheck(B);
  for (const p of pieces) check.push(p);
  return check.problem;
}

/** The names of the parts busboy hands over (undefined for a nameless one). */
function busboyParts(data: Buffer): Promise<(string | undefined)[]> {
  return new Promise((resolve) => {
    const names: (string | undefined)[] = [];
    const bb = new Busboy({ headers: { 'content-type': `multipart/form-data; boundary=${B}` }, limits: { headerPairs: 100 } });
    bb.on('field', (name: string) => names.push(name));
    bb.on('file', (name: string, file: NodeJS.ReadableStream) => {
      names.push(name);
      file.resume();
    });
    bb.on('finish', () => resolve(names));
    bb.on('error', () => resolve(names));
    bb.end(data);
  });
}

const many = Array.from({ length: 100 }, (_, i) => `X-Filler-${i}: ${i}`);

const CASES: { what: string; headers: string[]; refused: RegExp | null }[] = [
  { what: 'a form field', headers: ['Content-Disposition: form-data; name="b"'], refused: null },
  { what: 'a file', headers: ['Content-Disposition: form-data; name="file"; filename="a.png"', 'Content-Type: image/png'], refused: null },
  { what: 'upper case, no blank', headers: ['CONTENT-DISPOSITION:FORM-DATA; NAME=b'], refused: null },
  { what: 'blanks around the type', headers: ['Content-Disposition:  form-data ; name="b"'], refused: null },
  { what: 'name*=', headers: ["Content-Disposition: form-data; name*=utf-8''b"], refused: null },
  { what: 'a folded value', headers: ['Content-Disposition: form-data;', ' name="b"'], refused: null },
  { what: 'form-data without a name', headers: ['Content-Disposition: form-data; filename="a.png"'], refused: null },
  { what: 'no Content-Disposition', headers: ['Content-Type: image/png'], refused: /no Content-Disposition/ },
  { what: 'no header at all', headers: [], refused: /no Content-Disposition/ },
  { what: 'attachment', headers: ['Content-Disposition: attachment; filename="a.png"'], refused: /has Content-Disposition 'attachment': each part needs/ },
  { what: 'inline without parameters', headers: ['Content-Disposition: inline'], refused: /has Content-Disposition 'inline': each part needs/ },
  { what: 'form-data and a trailing blank, no parameters', headers: ['Content-Disposition: form-data '], refused: /not form-data/ },
  // Stricter than busboy, which reads this one as form-data: quotes around the type are refused.
  { what: 'a quoted form-data', headers: ['Content-Disposition: "form-data"; name="b"'], refused: /not form-data/ },
  { what: 'a quoted type', headers: ['Content-Disposition: "attachment"; name="b"'], refused: /not form-data/ },
  { what: 'after a line without a colon', headers: ['Not a header', 'Content-Disposition: form-data; name="b"'], refused: /no Content-Disposition/ },
  { what: 'after a bare line feed', headers: ['X-A: 1\nX-B: 2', 'Content-Disposition: form-data; name="b"'], refused: /no Content-Disposition/ },
  { what: 'after 100 other header lines', headers: [...many, 'Content-Disposition: form-data; name="b"'], refused: /no Content-Disposition/ },
  { what: 'a name that decodes to a line break', headers: ["Content-Disposition: form-data; name*=utf-8''a%0Db"], refused: /line break/ },
  {
    what: 'a filename that decodes to a line break',
    headers: ['Content-Disposition: form-data; name="b"; filename*=utf-8\'\'a%0a.png'],
    refused: /line break/,
  },
];

test('every part busboy skips is refused, and the parts it reads are not', async () => {
  for (const c of CASES) {
    const data = body(c.headers);
    const got = verdict([data]);
    if (c.refused) assert.match(got ?? '', c.refused, c.what);
    else assert.equal(got, null, c.what);
    const names = await busboyParts(data);
    // busboy reads the first part always; the second one unless it skips it.
    if (names.length < 2) assert.notEqual(got, null, `${c.what}: busboy skips it, so it must be refused`);
  }
});

test('the verdict does not depend on how the body is cut into chunks', () => {
  for (const c of CASES) {
    const data = body(c.headers);
    const whole = verdict([data]);
    for (let cut = 0; cut <= data.length; cut++) {
      assert.equal(verdict([data.subarray(0, cut), data.subarray(cut)]), whole, `${c.what}, cut at ${cut}`);
    }
    assert.equal(verdict([...data].map((byte) => Buffer.from([byte]))), whole, `${c.what}, byte by byte`);
    // Many pieces of every size, the content large enough for long and short pieces to follow each other.
    const big = body(c.headers, `${'y'.repeat(3000)}\r\n-${'z'.repeat(3000)}`);
    const bigWhole = verdict([big]);
    const random = mulberry(c.what.length);
    for (let round = 0; round < 50; round++) {
      const pieces: Buffer[] = [];
      for (let at = 0; at < big.length; ) {
        const size = 1 + Math.floor(random() ** 3 * 400);
        pieces.push(big.subarray(at, at + size));
        at += size;
      }
      assert.equal(verdict(pieces), bigWhole, `${c.what}, round ${round}`);
    }
  }
});

test('boundaries that are not delimiters, an empty part, a blank line missing, and what follows the closing boundary', () => {
  // The boundary text inside content, not after CRLF, is content.
  assert.equal(verdict([body(['Content-Disposition: form-data; name="b"'], `a --${B} and --${B}--`)]), null);
  // Two delimiters in a row: a part with no header block at all.
  assert.match(verdict([Buffer.from(`--${B}\r\n--${B}\r\nContent-Disposition: form-data; name="a"\r\n\r\nx\r\n--${B}--`)]) ?? '', /no Content-Disposition/);
  // Headers straight into the next delimiter, without the blank line.
  assert.match(verdict([Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="a"\r\n--${B}--`)]) ?? '', /no blank line/);
  // After the closing boundary nothing is a part.
  assert.equal(verdict([Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="a"\r\n\r\nx\r\n--${B}--\r\n--${B}\r\nX: 1\r\n\r\n`)]), null);
  // A header block past busboy's 80 KiB: what busboy keeps is what is read.
  const longValue = `X-Long: ${'y'.repeat(90 * 1024)}`;
  assert.match(verdict([body([longValue, 'Content-Disposition: form-data; name="b"'])]) ?? '', /no Content-Disposition/);
  assert.equal(verdict([body(['Content-Disposition: form-data; name="b"', longValue])]), null);
});

test('partProblem names the disposition it refuses only when it is a plain token', () => {
  assert.match(
    partProblem('Content-Disposition: attachment') ?? '',
    /^A multipart part has Content-Disposition 'attachment': each part needs Content-Disposition: form-data; name="..."$/,
  );
  assert.match(partProblem('Content-Disposition: <script>; x') ?? '', /has a Content-Disposition that is not form-data/);
});
