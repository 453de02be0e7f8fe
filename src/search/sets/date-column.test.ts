import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DateColumn } from './date-column.ts';

/** Ascending dates: runs of equal ones, gaps of a millisecond to years (past 2^31 ms), and a seeded mix. */
function dates(count: number): number[] {
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const out: number[] = [];
  let t = Date.parse('2001-01-01T00:00:00Z');
  for (let i = 0; i < count; i++) {
    const r = random();
    t += r < 0.2 ? 0 : r < 0.4 ? 1 : r < 0.9 ? Math.floor(random() * 200_000) : r < 0.98 ? Math.floor(random() * 2 ** 33) : 3 * 2 ** 31;
    out.push(t);
  }
  return out;
}

const brute = (all: number[], bound: number, inclusive: boolean) => all.filter((d) => (inclusive ? d <= bound : d < bound)).length;

test('counts the dates below a bound as a scan would, at and around every date and between blocks', () => {
  for (const count of [0, 1, 63, 64, 65, 500]) {
    const all = dates(count);
    const column = DateColumn.fromDescending([...all].reverse());
    assert.equal(column.length, count);
    assert.equal(column.last, count ? all[count - 1] : -Infinity);
    const bounds = [-Infinity, Infinity, ...all.flatMap((d) => [d - 1, d, d + 1])];
    for (const bound of bounds) {
      for (const inclusive of [false, true]) assert.equal(column.countBelow(bound, inclusive), brute(all, bound, inclusive), `${count}: ${bound} ${inclusive}`);
    }
  }
});

test('dates added after it was built count the same as if built at once; an earlier one is refused', () => {
  const all = dates(300);
  const column = DateColumn.fromDescending(all.slice(0, 130).reverse());
  for (const d of all.slice(130)) column.push(d);
  for (const d of all) {
    assert.equal(column.countBelow(d, false), brute(all, d, false));
    assert.equal(column.countBelow(d, true), brute(all, d, true));
  }
  assert.throws(() => column.push(all[299] - 1), /ascending/);
});

test('a million dates a minute apart take about 3 bytes each', () => {
  const all = Array.from({ length: 1_000_000 }, (_, i) => 1_700_000_000_000 + i * 60_000 + (i % 7));
  const column = DateColumn.fromDescending(all.reverse());
  assert.equal(column.countBelow(1_700_000_000_000 + 500_000 * 60_000, false), 500_000);
  const size = column.bytes();
  assert.ok(size < 3.5 * 1_000_000, `${size} bytes`);
});
