import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { test } from 'node:test';
import { BytePool, JsonWriter, asciiBytes } from './json-bytes.ts';

/**
 * What BytePool uses of a response: its 'finish' event, and whether it has ended with nothing
 * left to hand to the socket. `taken`: the socket took the whole answer as it was sent.
 */
const response = ({ taken = false } = {}) =>
  Object.assign(new EventEmitter(), { writableEnded: taken, writableLength: taken ? 0 : 1024 }) as unknown as ServerResponse;

/** A JSON array of the given JSON texts, written by the pool and sent on `res` (then given back). */
const jsonArray = (pool: BytePool, items: readonly string[], res: ServerResponse) => {
  const bytes = pool.json((w) => {
    w.raw('[');
    items.forEach((item, i) => {
      if (i > 0) w.raw(',');
      w.json(item);
    });
    w.raw(']');
  });
  pool.release(res, bytes);
  return bytes;
};

test('a JSON array of JSON texts written as bytes: commas, brackets, and text outside ASCII', () => {
  const pool = new BytePool();
  const items = ['{"a":1}', '{"name":"ünïcödé ✓ 猫"}', '"x"'];
  assert.equal(jsonArray(pool, items, response()).toString('utf8'), `[${items.join(',')}]`);
  assert.deepEqual(
    JSON.parse(jsonArray(pool, items, response()).toString('utf8')),
    items.map((t) => JSON.parse(t)),
  );
  assert.equal(jsonArray(pool, [], response()).toString('utf8'), '[]');
  assert.equal(jsonArray(pool, ['1'], response()).toString('utf8'), '[1]');
});

test('a buffer the socket is still sending from is used again only once its answer has finished; an answer cut short keeps it', () => {
  const pool = new BytePool();
  const first = response();
  const a = jsonArray(pool, ['{"n":1}'], first);
  // While the first answer is being sent, another gets a buffer of its own.
  const b = jsonArray(pool, ['{"n":2}'], response());
  assert.notEqual(a.buffer, b.buffer);
  assert.equal(a.toString(), '[{"n":1}]');
  first.emit('finish');
  assert.equal(pool.kept, 1);
  const c = jsonArray(pool, ['{"n":3}'], response());
  assert.equal(c.buffer, a.buffer);
  assert.equal(pool.kept, 0);
  // Closed before finishing (the client went away mid-answer): the socket may still read it.
  const cut = response();
  jsonArray(pool, ['{"n":4}'], cut);
  cut.emit('close');
  assert.equal(pool.kept, 0);
});

test('pages sent whole one after another (requests that came together) use one buffer, not one each', () => {
  const pool = new BytePool();
  const pages = Array.from({ length: 16 }, (_, n) => jsonArray(pool, [`{"n":${n}}`], response({ taken: true })));
  assert.equal(new Set(pages.map((p) => p.buffer)).size, 1);
  assert.equal(pool.kept, 1);
  assert.equal(pages.at(-1)!.toString(), '[{"n":15}]');
});

test('a view of a buffer the pool made is taken back once sent; bytes it did not make are not', () => {
  const pool = new BytePool(1024, 8);
  const w = new JsonWriter(pool.take(10), pool);
  w.raw('{"posts":[]}');
  const sent = w.buffer.subarray(0, w.at);
  assert.equal(w.buffer.length, 1024);
  const res = response();
  pool.release(res, sent);
  assert.equal(pool.kept, 0);
  res.emit('finish');
  assert.equal(pool.kept, 1);
  assert.equal(pool.take(10).buffer, sent.buffer);
  const other = response({ taken: true });
  pool.release(other, Buffer.from('{"a":1}'));
  other.emit('finish');
  assert.equal(pool.kept, 0);
});

test('a page larger than any kept buffer gets a larger one; at most a few are kept', () => {
  const pool = new BytePool();
  const big = Array.from({ length: 3000 }, (_, i) => JSON.stringify({ i, text: 'x'.repeat(300) }));
  const done = Array.from({ length: 6 }, () => response());
  const pages = done.map((res) => jsonArray(pool, big, res));
  for (const page of pages)
    assert.deepEqual(
      JSON.parse(page.toString()),
      big.map((t) => JSON.parse(t)),
    );
  for (const res of done) res.emit('finish');
  assert.equal(pool.kept, 4);
});

/** What a writer that starts with `size` bytes writes. */
function written(write: (w: JsonWriter) => void, size = 8): string {
  const w = new JsonWriter(Buffer.alloc(size));
  write(w);
  return w.buffer.toString('utf8', 0, w.at);
}

test('numbers are written as JSON.stringify writes them', () => {
  const numbers = [0, 7, 10, 99, 100, 123456789, -1, -40, 2 ** 53 - 1, -(2 ** 53 - 1), 2 ** 60, 12.5, -0.25, 1e-7, Number.NaN];
  for (const n of numbers)
    assert.equal(
      written((w) => w.number(n)),
      JSON.stringify(n),
      String(n),
    );
});

test('strings are written as JSON.stringify writes them: quotes, backslashes, control characters, text outside ASCII, lone surrogates', () => {
  const short = [
    '',
    'cat',
    'a "quoted" tag',
    'back\\slash',
    'tab\there\nnew line \u0001',
    'ünïcödé ✓ 猫',
    'emoji 😀',
    'lone \ud800 surrogate',
    'del \u007f',
    'x'.repeat(5000),
  ];
  // Long texts are checked and encoded another way (inString): each case again, long, with the odd character at either end.
  const texts = [...short, ...short.flatMap((t) => [`${'long text '.repeat(4)}${t}`, `${t}${' and more'.repeat(5)}`])];
  for (const t of texts) {
    assert.equal(
      written((w) => w.string(t)),
      JSON.stringify(t),
    );
    // Inside a string begun before: what comes before it is kept.
    const inside = (w: JsonWriter) => {
      w.raw('"ab');
      w.inString(t);
      w.raw('"');
    };
    assert.equal(written(inside), JSON.stringify(`ab${t}`));
  }
});

test('bytes made beforehand are written as they are, short and long, growing the buffer', () => {
  const pieces = [',', '{"id":', ',"is_pending":false,"is_flagged":false,"file_url":'].map(asciiBytes);
  const out = written((w) => {
    for (let i = 0; i < 50; i++) for (const p of pieces) w.bytes(p);
  }, 4);
  assert.equal(out, '{"id":,"is_pending":false,"is_flagged":false,"file_url":'.replace(/^/, ',').repeat(50));
  assert.throws(() => asciiBytes('caf\u00e9'), /not ASCII/);
});

test('a writer grows past its first buffer and keeps what it wrote; bytes written before are written again', () => {
  const out = written((w) => {
    w.raw('[');
    const start = w.at;
    w.string('https://board.example/media/originals/ab/cd/abcd.png');
    const end = w.at;
    for (let i = 0; i < 100; i++) {
      w.raw(',');
      w.again(start, end);
    }
    w.raw(']');
  }, 4);
  assert.deepEqual(JSON.parse(out), Array(101).fill('https://board.example/media/originals/ab/cd/abcd.png'));
});
