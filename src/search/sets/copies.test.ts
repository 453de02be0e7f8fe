import assert from 'node:assert/strict';
import { test } from 'node:test';
import { COPIES_BUDGET_BYTES, KEPT_BYTES_PER_POST, setsFor } from './copies.ts';

test('SEARCH_SETS=auto: a copy a thread while all the copies fit the budget, one shared copy past it', () => {
  const fits = Math.floor(COPIES_BUDGET_BYTES / KEPT_BYTES_PER_POST / 2);
  assert.equal(setsFor('auto', 2, 1_000_000), 'each', 'a million posts on two threads: a copy each');
  assert.equal(setsFor('auto', 2, fits), 'each');
  assert.equal(setsFor('auto', 2, fits + 1), 'shared');
  assert.equal(setsFor('auto', 4, fits), 'shared', 'more threads, more copies: shared sooner');
  assert.equal(setsFor('auto', 2, 10_000_000), 'shared', 'ten million posts: one copy');
});

test('SEARCH_SETS=shared or each is taken as said, whatever the size', () => {
  assert.equal(setsFor('shared', 2, 100), 'shared');
  assert.equal(setsFor('each', 8, 10_000_000), 'each');
});
