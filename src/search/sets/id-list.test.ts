import { test } from 'node:test';
import assert from 'node:assert/strict';
import { IdLists } from './id-list.ts';
import { memberDescending } from './post-set.ts';
import { readIdText } from './tag-sets.ts';

const all = (lists: IdLists, k: number) => {
  const out = new Int32Array(lists.size(k));
  lists.decode(k, out);
  return [...out];
};

test('an id list gives back its ids highest first, across gaps of every varint length', () => {
  const ids = [2 ** 31 - 1, 2 ** 31 - 2, 2 ** 30, 2 ** 28 + 5, 2 ** 21 + 3, 2 ** 14 + 1, 16_384, 200, 129, 128, 127, 1];
  const lists = new IdLists();
  const k = lists.add(ids);
  assert.deepEqual(all(lists, k), ids);
  assert.equal(lists.size(k), ids.length);
  assert.deepEqual(all(lists, lists.add([])), []);
  assert.deepEqual(all(lists, lists.add([7])), [7]);
});

test('a list read one id at a time gives the same ids, then -1, and a reader stopped early leaves the next reader whole', () => {
  const lists = new IdLists(64);
  const made = [[9, 8, 3, 0], [2 ** 31 - 1, 2 ** 21 + 3, 16_384, 127, 1], [], [5]];
  const numbers = made.map((ids) => lists.add(ids));
  const read = (k: number, most = Infinity) => {
    const r = lists.reader(k);
    const out: number[] = [];
    for (let id = r.next(); id >= 0 && out.length < most; id = r.next()) out.push(id);
    return out;
  };
  for (const [i, k] of numbers.entries()) assert.deepEqual(read(k), made[i]);
  assert.deepEqual(read(numbers[1], 2), made[1].slice(0, 2));
  assert.deepEqual(read(numbers[1]), made[1]);
  const r = lists.reader(numbers[3]);
  assert.deepEqual([r.next(), r.next(), r.next()], [5, -1, -1]);
});

test('a walk testing a few posts spread over every id skips through a long list: the same answers, a small part of it read', () => {
  // A tag's 300,000 posts among ten million, and a user's 60 posts: the walk of `user:NAME tag`.
  let seed = 7;
  const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  const tagged = new Set<number>();
  while (tagged.size < 300_000) tagged.add(1 + Math.floor(random() * 10_000_000));
  const ids = [...tagged].sort((a, b) => b - a);
  const lists = new IdLists();
  lists.add([5, 3]);
  const k = lists.add(ids);
  lists.add([9, 4, 1]);
  // Another long list after it: a reader of the first must not jump into this one's entries.
  const later = Array.from({ length: 5_000 }, (_, i) => 5_000 - i);
  const l = lists.add(later);
  const picked = [...ids.filter((_, i) => i % 5_000 === 0), ...Array.from({ length: 60 }, () => 1 + Math.floor(random() * 10_000_000))];
  // Low ids, this list's among them: a reader that jumped into the later list's entries would read past its own end.
  const low = later.filter((id) => tagged.has(id) || id % 97 === 0);
  const probes = [...new Set([...picked, ...low])].sort((a, b) => b - a);
  const reader = lists.reader(k);
  let reads = 0;
  const counted = {
    next: () => {
      reads++;
      return reader.next();
    },
    skip: (id: number, at: number) => reader.skip(id, at),
  };
  const isIn = memberDescending(counted);
  assert.deepEqual(
    probes.map((id) => isIn(id)),
    probes.map((id) => tagged.has(id)),
  );
  assert.ok(probes.some((id) => tagged.has(id)) && probes.some((id) => !tagged.has(id)));
  assert.ok(reads < ids.length / 10, `${reads} ids read of ${ids.length}`);
  // The lists around it read whole, as before.
  assert.deepEqual(all(lists, 0), [5, 3]);
  assert.deepEqual(all(lists, 2), [9, 4, 1]);
  assert.deepEqual(all(lists, k), ids);
  const second = memberDescending(lists.reader(l));
  assert.deepEqual(
    [4_000, 17, 1].map((id) => second(id)),
    [true, true, true],
  );
});

test('dense ids take a byte each', () => {
  const lists = new IdLists();
  lists.add(Array.from({ length: 1000 }, (_, i) => 100_000 - i * 3));
  assert.equal(lists.encoded, 3 + 999);
});

test('many lists share chunks without reading into each other, and one larger than a chunk gets its own', () => {
  const lists = new IdLists(64);
  const made: number[][] = [];
  for (let n = 0; n < 300; n++) {
    const size = n === 150 ? 500 : n % 9;
    made.push(Array.from({ length: size }, (_, i) => 1_000_000 - n * 1000 - i * (1 + (n % 200))));
  }
  const numbers = made.map((ids) => lists.add(ids));
  assert.deepEqual(
    numbers,
    made.map((_, i) => i),
  );
  assert.equal(lists.count, 300);
  for (const [k, ids] of made.entries()) {
    assert.deepEqual(all(lists, k), ids);
    assert.equal(lists.size(k), ids.length);
  }
});

test('a text of ids reads as its numbers', () => {
  assert.deepEqual([...readIdText('12,7,1000000,3')], [12, 7, 1_000_000, 3]);
  assert.deepEqual([...readIdText('5')], [5]);
  assert.deepEqual([...readIdText('')], []);
});
