import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NameIndex } from './name-index.ts';
import { NameSearch } from './name-search.ts';

interface Item {
  name: string;
  slot: number;
}

/** A search over `order` (names, a permutation or subset of `all`), indexed over `all`. */
function searchOf(all: string[], order: string[] = all) {
  const index = new NameIndex(all);
  const items = order.map((name) => ({ name, slot: all.indexOf(name) }));
  return new NameSearch<Item>(items, () => index);
}

/** What the database answers: matches in list order, those starting with the needle first. */
function expected(order: string[], needle: string, offset = 0, limit = 1_000_000) {
  const matches = order.filter((n) => n.startsWith(needle)).concat(order.filter((n) => n.includes(needle) && !n.startsWith(needle)));
  return { names: matches.slice(offset, offset + limit), total: matches.length };
}

function found(s: NameSearch<Item>, needle: string, offset = 0, limit = 1_000_000) {
  const r = s.find(needle, offset, limit);
  return { names: r.items.map((i) => i.name), total: r.total };
}

test('names containing the text, in list order, those starting with it first, each once', () => {
  const s = searchOf(['blue_sky', 'sky', 'skyline', 'sky_sky', 'sea', 'ask']);
  assert.deepEqual(found(s, 'sky'), { names: ['sky', 'skyline', 'sky_sky', 'blue_sky'], total: 4 });
  assert.deepEqual(found(s, 'a'), { names: ['ask', 'sea'], total: 2 });
  assert.deepEqual(found(s, 'ky'), { names: ['blue_sky', 'sky', 'skyline', 'sky_sky'], total: 4 });
  assert.deepEqual(found(s, 'y_s'), { names: ['sky_sky'], total: 1 });
  assert.deepEqual(found(s, 'kyline'), { names: ['skyline'], total: 1 });
  assert.deepEqual(found(s, 'sky_sky'), { names: ['sky_sky'], total: 1 });
  assert.deepEqual(found(s, 'zzz'), { names: [], total: 0 });
  assert.deepEqual(found(s, '').total, 6);
});

test('needles of 4 and more characters are checked, not only their 3-character parts', () => {
  // 'abc_bcd_cde' holds every 3-character part of 'abcde', but not 'abcde'.
  const s = searchOf(['abc_bcd_cde', 'abcde', 'xabcdex', 'abcd']);
  assert.deepEqual(found(s, 'abcde'), { names: ['abcde', 'xabcdex'], total: 2 });
  assert.deepEqual(found(s, 'abcd'), { names: ['abcde', 'abcd', 'xabcdex'], total: 3 });
});

test('text never matches across two names', () => {
  const s = searchOf(['ab', 'cd']);
  assert.deepEqual(found(s, 'b\nc'), { names: [], total: 0 });
  assert.deepEqual(found(s, 'bc'), { names: [], total: 0 });
  assert.deepEqual(found(s, 'b\n'), { names: [], total: 0 });
  assert.deepEqual(found(s, 'abc'), { names: [], total: 0 });
  assert.deepEqual(found(s, 'd'), { names: ['cd'], total: 1 });
});

test('non-ASCII names: accents, CJK and characters outside the BMP', () => {
  const all = ['café', 'caféine', 'naïve', '日本語', '東京タワー', 'タワー', '🐱cat', 'cat🐱', 'cafe'];
  const s = searchOf(all);
  for (const needle of ['é', 'fé', 'afé', 'café', 'ï', '日本', '本語', 'ワー', 'タワー', '🐱', '🐱c', 't🐱', 'e', 'ca', 'x本']) {
    assert.deepEqual(found(s, needle), expected(all, needle), needle);
  }
});

test('a list in another order, or a subset of the names, is searched in its own order', () => {
  const all = ['sky', 'skyline', 'blue_sky', 'sea', 'seashell', 'ask'];
  const order = ['seashell', 'blue_sky', 'skyline', 'ask'];
  const s = searchOf(all, order);
  for (const needle of ['s', 'sk', 'sky', 'sea', 'ea', 'a', 'lin', 'skyl', 'q']) {
    assert.deepEqual(found(s, needle), expected(order, needle), needle);
  }
});

test('pages: within the names starting with it, across to the others, and past the end', () => {
  // 100 names, so the matches span several 32-bit words of the bit sets.
  const all = Array.from({ length: 100 }, (_, i) => (i % 3 === 0 ? `ab${i}` : `x${i}ab`));
  const s = searchOf(all);
  for (const [offset, limit] of [
    [0, 10],
    [10, 30],
    [30, 10],
    [33, 1],
    [34, 5],
    [95, 10],
    [99, 1],
    [100, 10],
    [500, 50],
  ]) {
    assert.deepEqual(found(s, 'ab', offset, limit), expected(all, 'ab', offset, limit), `${offset} ${limit}`);
  }
  assert.deepEqual(found(s, 'ab', 100, 10), { names: [], total: 100 });
});

test('a search leaves nothing behind for the next one', () => {
  const s = searchOf(['aa', 'ba', 'ab']);
  assert.deepEqual(found(s, 'a'), { names: ['aa', 'ab', 'ba'], total: 3 });
  assert.deepEqual(found(s, 'b'), { names: ['ba', 'ab'], total: 2 });
  assert.deepEqual(found(s, 'a', 0, 1), { names: ['aa'], total: 3 });
  assert.deepEqual(found(s, 'ba'), { names: ['ba'], total: 1 });
});

test('matches what a scan of every name finds, on many names and needles', () => {
  let seed = 1;
  const random = (n: number) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return (seed >>> 8) % n;
  };
  const letters = 'abcde_é日';
  const names = new Set<string>();
  while (names.size < 3000) names.add(Array.from({ length: 1 + random(9) }, () => letters[random(letters.length)]).join(''));
  const all = [...names];
  const order = all.filter((_, i) => i % 4 !== 0).sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
  const s = searchOf(all, order);
  for (let i = 0; i < 300; i++) {
    const needle = Array.from({ length: 1 + random(5) }, () => letters[random(letters.length)]).join('');
    const offset = random(3) === 0 ? random(200) : 0;
    assert.deepEqual(found(s, needle, offset, 50), expected(order, needle, offset, 50), needle);
  }
});

test('more than 65,536 names (4-byte numbers in the index)', () => {
  const all = Array.from({ length: 70_000 }, (_, i) => `t${i}`);
  const s = searchOf(all);
  assert.deepEqual(found(s, '69999'), { names: ['t69999'], total: 1 });
  assert.deepEqual(found(s, 't6999', 0, 3), { names: ['t6999', 't69990', 't69991'], total: 11 });
  assert.deepEqual(found(s, '999'), expected(all, '999'));
});
