// The leading posts of a count stay the first posts of its order while counts move.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mulberry as rng } from '../../../test/prng.ts';
import { Counts, LEADERS, Leaders } from './post-numbers.ts';

test('after any moves, the leaders are a prefix of the order of every post (count, then id, highest first)', () => {
  const rand = rng(5);
  const posts = LEADERS * 2;
  const count = new Counts();
  count.grow(posts + 1);
  for (let id = 1; id <= posts; id++) count.set(id, Math.floor(1 / (rand() + 0.002)) - 1);
  const leaders = new Leaders(count);
  leaders.build(posts);
  const order = () => Array.from({ length: posts }, (_, i) => i + 1).sort((a, b) => count.get(b) - count.get(a) || b - a);
  let rebuilt = 0;
  for (let round = 0; round < 6; round++) {
    for (let k = 0; k < 6_000; k++) {
      // Small moves (a like, an unlike) and big ones; leaders falling to nothing often, so they drop out.
      const leader = rand() < 0.7;
      const id = leader ? leaders.ids[Math.floor(rand() * leaders.length)] : 1 + Math.floor(rand() * posts);
      const was = count.get(id);
      const r = rand();
      const now = leader && r < 0.6 ? 0 : r < 0.65 ? Math.floor(rand() * 70_000) : Math.max(0, was + (rand() < 0.5 ? -1 : 1) * (1 + Math.floor(rand() * 3)));
      count.set(id, now);
      leaders.moved(id, was);
    }
    if (leaders.stale) {
      leaders.build(posts);
      rebuilt++;
    }
    const got = Array.from(leaders.ids.subarray(0, leaders.length));
    assert.ok(got.length >= LEADERS / 2, `round ${round}: ${got.length} leaders`);
    assert.deepEqual(got, order().slice(0, got.length), `round ${round}`);
  }
  assert.ok(rebuilt > 0, 'leaders that shrank below half were built again');
});

test('a count past what a byte holds is kept exactly, and again after it falls back', () => {
  const count = new Counts();
  count.grow(6);
  for (const [id, n] of [
    [1, 254],
    [2, 255],
    [3, 256],
    [4, 65_536],
    [5, 1_000_000],
  ])
    count.set(id, n);
  assert.deepEqual(
    [1, 2, 3, 4, 5].map((id) => count.get(id)),
    [254, 255, 256, 65_536, 1_000_000],
  );
  assert.equal(count.set(5, 7), 1_000_000);
  assert.equal(count.get(5), 7);
  assert.equal(count.set(2, 254), 255);
  assert.equal(count.get(2), 254);
});
