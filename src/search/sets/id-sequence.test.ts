import { test } from 'node:test';
import assert from 'node:assert/strict';
import { IdSequence } from './id-sequence.ts';

const all = (s: IdSequence) => s.slice(0, s.length);
const runsOf = (s: IdSequence) => (s as unknown as { plain: Int32Array | null }).plain === null;
/** Ids from `high` down to 1, without the ones in `gone`. */
const down = (high: number, gone: number[] = []) => Int32Array.from({ length: high }, (_, i) => high - i).filter((id) => !gone.includes(id));

test('ids in upload order with a few deletes are kept as runs and read back the same at every position', () => {
  const ids = down(1000, [1000, 999, 500, 3, 1]);
  const s = IdSequence.of(ids);
  assert.ok(runsOf(s));
  assert.equal(s.length, ids.length);
  assert.equal(s.descending, true);
  assert.deepEqual(all(s), [...ids]);
  for (const i of [0, 1, 499, 500, 993, 994]) assert.equal(s.at(i), ids[i]);
  assert.deepEqual(s.slice(495, 505), [...ids.subarray(495, 505)]);
  assert.deepEqual(s.slice(990, 2000), [...ids.subarray(990)]);
  for (const id of [2000, 1000, 998, 501, 500, 499, 2, 1, 0]) assert.equal(s.countAbove(id), ids.filter((x) => x > id).length, `above ${id}`);
});

test('ids out of order, or scattered into many runs, are kept one by one and read the same', () => {
  const shuffled = Int32Array.from([5, 9, 2, 7, 1]);
  const a = IdSequence.of(shuffled);
  assert.equal(a.descending, false);
  assert.deepEqual(all(a), [5, 9, 2, 7, 1]);
  const sparse = Int32Array.from({ length: 400 }, (_, i) => 4000 - i * 10);
  const b = IdSequence.of(sparse);
  assert.ok(!runsOf(b));
  assert.equal(b.descending, true);
  assert.deepEqual(all(b), [...sparse]);
  assert.equal(b.countAbove(3995), 1);
});

test('new ids prepended join the runs (continuing the first when adjacent) or turn them into single ids', () => {
  const base = IdSequence.of(down(100, [50]));
  const next = base.prepend(Int32Array.from([103, 102, 101]));
  assert.ok(runsOf(next));
  assert.deepEqual(all(next), [103, 102, 101, ...down(100, [50])]);
  assert.equal((next as unknown as { starts: Int32Array }).starts.length, 2, 'adjacent ids continue the first run');
  const gap = next.prepend(Int32Array.from([110, 108]));
  assert.deepEqual(all(gap), [110, 108, 103, 102, 101, ...down(100, [50])]);
  assert.equal(gap.descending, true);
  const older = gap.prepend(Int32Array.from([120, 7]));
  assert.equal(older.descending, false);
  assert.deepEqual(all(older), [120, 7, 110, 108, 103, 102, 101, ...down(100, [50])]);
  const empty = IdSequence.of(new Int32Array(0)).prepend(Int32Array.from([3, 2, 1]));
  assert.deepEqual([all(empty), empty.length], [[3, 2, 1], 3]);
});
