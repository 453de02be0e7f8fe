import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KeptTotals } from './totals.ts';

test('a total is worked out once a stamp and given back only at that stamp; the oldest stamps and totals go first', () => {
  const kept = new KeptTotals(2, 2);
  let worked = 0;
  const work = (total: number) => () => {
    worked++;
    return { total, estimated: false };
  };
  assert.equal(kept.of('a', 'v1', work(5)).total, 5);
  assert.equal(kept.of('a', 'v1', work(6)).total, 5, 'kept');
  assert.equal(worked, 1);
  assert.equal(kept.of('a', 'v2', work(7)).total, 7, 'another stamp: worked out there');
  assert.equal(kept.of('a', 'v1', work(8)).total, 5, 'both stamps kept');
  assert.equal(kept.of('a', 'v3', work(9)).total, 9);
  assert.equal(kept.peek('a', 'v1'), undefined, 'past `stamps` stamps, the oldest is dropped');
  assert.equal(kept.peek('a', 'v2')?.total, 7);
  kept.of('b', 'v3', work(10));
  kept.of('c', 'v3', work(11));
  assert.equal(kept.peek('a', 'v3'), undefined, 'at most `max` totals a stamp, the oldest dropped first');
  assert.equal(kept.peek('c', 'v3')?.total, 11);
});
