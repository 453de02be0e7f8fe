import assert from 'node:assert/strict';
import { test } from 'node:test';
import { danbooruTime } from './danbooru-time.ts';

const viaDate = (ms: number) => new Date(ms).toISOString().replace('Z', '+00:00');

test("Danbooru's timestamps: ISO 8601 with milliseconds and +00:00, for any time of any day", () => {
  assert.equal(danbooruTime(Date.UTC(2024, 0, 2, 3, 4, 5, 678)), '2024-01-02T03:04:05.678+00:00');
  const edges = [0, 1, 999, 59_999, 86_399_999, 86_400_000, Date.UTC(2000, 1, 29, 23, 59, 59, 999), 253_402_300_799_999];
  // Outside years 1970-9999, and fractions of a millisecond, as Date writes them.
  const others = [-1, -86_400_001, 253_402_300_800_000, 1.5];
  for (const ms of [...edges, ...others]) assert.equal(danbooruTime(ms), viaDate(ms), String(ms));
  let seed = 1;
  for (let i = 0; i < 20_000; i++) {
    seed = (seed * 48_271) % 2_147_483_647;
    const ms = Math.floor((seed / 2_147_483_647) * 4_102_444_800_000);
    assert.equal(danbooruTime(ms), viaDate(ms), String(ms));
  }
});
