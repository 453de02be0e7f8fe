import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DecodedLists } from './decoded-lists.ts';

const list = (n: number, first = 0) => Int32Array.from({ length: n }, (_, i) => first + n - i);

test('decoded lists: one budget for every kind of set, the least recently used dropped first', () => {
  // 400 bytes: lists of 25 ids (100 bytes) fit four at a time.
  const cache = new DecodedLists(400);
  const tags = cache.owner();
  const words = cache.owner();
  cache.set(tags, 1, list(25));
  cache.set(words, 1, list(25, 100));
  cache.set(tags, 2, list(25));
  cache.set(words, 2, list(25));
  // The same key of two kinds is two lists.
  assert.equal(cache.get(words, 1)?.[0], 125);
  assert.equal(cache.get(tags, 1)?.[0], 25);
  // A fifth list drops the least recently used: the tag 2 list (tags 1 and words 1 were read since).
  cache.set(tags, 3, list(25));
  assert.equal(cache.get(tags, 2), undefined);
  assert.ok(cache.get(words, 2) && cache.get(tags, 1) && cache.get(words, 1) && cache.get(tags, 3));
  // A list over a quarter of the budget is not kept.
  cache.set(tags, 4, list(26));
  assert.equal(cache.get(tags, 4), undefined);
  // Forgetting keys, or all of one kind's lists, leaves the other kind's.
  cache.forget(tags, [3]);
  assert.equal(cache.get(tags, 3), undefined);
  cache.forget(words);
  assert.equal(cache.get(words, 1), undefined);
  assert.equal(cache.get(words, 2), undefined);
  assert.ok(cache.get(tags, 1));
  // What was forgotten gave its room back: three new lists fit beside tag 1's; a fourth drops the oldest.
  for (let k = 10; k < 13; k++) cache.set(words, k, list(25));
  assert.ok(cache.get(tags, 1));
  cache.set(words, 13, list(25));
  assert.equal(cache.get(words, 10), undefined);
  assert.ok(cache.get(tags, 1) && cache.get(words, 13));
});
