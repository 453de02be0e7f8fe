import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NameSearch } from './name-search.ts';

const names = (items: { name: string }[]) => items.map((i) => i.name);

test('finds names containing the text, in list order, those starting with it first, each once', () => {
  const s = new NameSearch(['blue_sky', 'sky', 'skyline', 'sky_sky', 'sea', 'ask'].map((name) => ({ name })));
  assert.deepEqual(names(s.find('sky')), ['sky', 'skyline', 'sky_sky', 'blue_sky']);
  assert.deepEqual(names(s.find('a')), ['ask', 'sea']);
  assert.deepEqual(names(s.find('zzz')), []);
  assert.deepEqual(names(s.find('')).length, 6);
});

test('text never matches across two names', () => {
  const s = new NameSearch([{ name: 'ab' }, { name: 'cd' }]);
  assert.deepEqual(names(s.find('b\nc')), []);
  assert.deepEqual(names(s.find('bc')), []);
  assert.deepEqual(names(s.find('d')), ['cd']);
});
