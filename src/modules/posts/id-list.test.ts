import { test } from 'node:test';
import assert from 'node:assert/strict';
import { IdList } from './id-list.ts';
import { readIdText } from './tag-sets.ts';

const all = (list: IdList) => {
  const out: number[] = [];
  const r = list.reader();
  for (let id = r.next(); id >= 0; id = r.next()) out.push(id);
  return out;
};

test('an id list gives back its ids highest first, across gaps of every varint length', () => {
  const ids = [2 ** 31 - 1, 2 ** 31 - 2, 2 ** 30, 2 ** 28 + 5, 2 ** 21 + 3, 2 ** 14 + 1, 16_384, 200, 129, 128, 127, 1];
  const list = IdList.fromDescending(ids);
  assert.deepEqual(all(list), ids);
  assert.equal(list.size, ids.length);
  assert.deepEqual(all(IdList.fromDescending([])), []);
  assert.deepEqual(all(IdList.fromDescending([7])), [7]);
});

test('dense ids take a byte each', () => {
  const ids = Array.from({ length: 1000 }, (_, i) => 100_000 - i * 3);
  assert.equal(IdList.fromDescending(ids).bytes.length, 3 + 999);
});

test('a text of ids reads as its numbers', () => {
  assert.deepEqual([...readIdText('12,7,1000000,3')], [12, 7, 1_000_000, 3]);
  assert.deepEqual([...readIdText('5')], [5]);
  assert.deepEqual([...readIdText('')], []);
});
