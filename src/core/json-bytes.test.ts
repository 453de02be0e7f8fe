import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { test } from 'node:test';
import { BytePool } from './json-bytes.ts';

/** What BytePool uses of a response: its 'finish' event. */
const response = () => new EventEmitter() as unknown as ServerResponse;

test('a JSON array of JSON texts written as bytes: commas, brackets, and text outside ASCII', () => {
  const pool = new BytePool();
  const items = ['{"a":1}', '{"name":"ünïcödé ✓ 猫"}', '"x"'];
  assert.equal(pool.jsonArray(items, response()).toString('utf8'), `[${items.join(',')}]`);
  assert.deepEqual(
    JSON.parse(pool.jsonArray(items, response()).toString('utf8')),
    items.map((t) => JSON.parse(t)),
  );
  assert.equal(pool.jsonArray([], response()).toString('utf8'), '[]');
  assert.equal(pool.jsonArray(['1'], response()).toString('utf8'), '[1]');
});

test('a buffer is used again only once its answer has finished; an answer cut short keeps it', () => {
  const pool = new BytePool();
  const first = response();
  const a = pool.jsonArray(['{"n":1}'], first);
  // While the first answer is being sent, another gets a buffer of its own.
  const b = pool.jsonArray(['{"n":2}'], response());
  assert.notEqual(a.buffer, b.buffer);
  assert.equal(a.toString(), '[{"n":1}]');
  first.emit('finish');
  assert.equal(pool.kept, 1);
  const c = pool.jsonArray(['{"n":3}'], response());
  assert.equal(c.buffer, a.buffer);
  assert.equal(pool.kept, 0);
  // Closed before finishing (the client went away mid-answer): the socket may still read it.
  const cut = response();
  pool.jsonArray(['{"n":4}'], cut);
  cut.emit('close');
  assert.equal(pool.kept, 0);
});

test('a page larger than any kept buffer gets a larger one; at most a few are kept', () => {
  const pool = new BytePool();
  const big = Array.from({ length: 3000 }, (_, i) => JSON.stringify({ i, text: 'x'.repeat(300) }));
  const done = Array.from({ length: 6 }, () => response());
  const pages = done.map((res) => pool.jsonArray(big, res));
  for (const page of pages)
    assert.deepEqual(
      JSON.parse(page.toString()),
      big.map((t) => JSON.parse(t)),
    );
  for (const res of done) res.emit('finish');
  assert.equal(pool.kept, 4);
});
