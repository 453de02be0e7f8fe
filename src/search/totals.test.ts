import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KeptTotals } from './totals.ts';

test('a total is worked out once a stamp and given back only at that stamp; a new stamp drops the others', () => {
  const kept = new KeptTotals(2);
  let worked = 0;
  const work = (total: number) => () => {
    worked++;
    return { total, estimated: false };
  };
  assert.equal(kept.of('a', 'v1', work(5)).total, 5);
  assert.equal(kept.of('a', 'v1', work(6)).total, 5, 'kept');
  assert.equal(worked, 1);
  assert.equal(kept.of('a', 'v2', work(7)).total, 7, 'the data moved: worked out again');
  assert.equal(kept.of('b', 'v2', work(8)).total, 8);
  assert.equal(kept.of('a', 'v1', work(9)).total, 9, 'an older stamp gets nothing kept at a newer one');
  assert.equal(kept.of('b', 'v1', work(10)).total, 10, 'nor what was kept before');
  kept.of('c', 'v1', work(11));
  kept.of('d', 'v1', work(12));
  assert.equal(kept.of('b', 'v1', work(13)).total, 13, 'at most `max` kept, the oldest dropped first');
});
