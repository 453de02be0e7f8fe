import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { readE621 } from './e621.ts';

const fixture = (name: string) => JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '../../../../test/fixtures/sidecars', name), 'utf8'));
const media = { file: '/in/e621/e621_3181052_c68c.png', label: 'e621/e621_3181052_c68c.png' };

test('e621: a post from the pool extractor: tags by kind, its place in the pool, the first URL among its sources, total score', () => {
  assert.deepEqual(readE621(fixture('e621-pool.json'), media), {
    origin: 'e621',
    originId: '3181052',
    file: media.file,
    label: media.label,
    md5: 'c68cca0643890b615f75fb2719589bff',
    tags: [
      { name: 'ambiguous_gender', category: 'general' },
      { name: 'feral', category: 'general' },
      { name: 'group', category: 'general' },
      { name: 'outside', category: 'general' },
      { name: 'text', category: 'general' },
      { name: 'yeetus90', category: 'artist' },
      { name: 'pokemon', category: 'copyright' },
      { name: 'nintendo', category: 'copyright' },
      { name: 'eevee_(character)', category: 'character' },
      // species and lore have no kind of ours: general.
      { name: 'eevee', category: 'general' },
      { name: 'pokemon_(species)', category: 'general' },
      { name: 'comic', category: 'meta' },
      { name: 'english_text', category: 'meta' },
      { name: 'male_(lore)', category: 'general' },
    ],
    rating: 'safe',
    source: 'https://www.furaffinity.net/view/46012345/',
    title: null,
    description: 'Page 2 of Little Legends 2.',
    createdAt: Date.parse('2022-02-17T04:51:47.221Z'),
    parentOriginId: '3181040',
    pools: [
      {
        key: '27492',
        name: 'Little Legends 2',
        position: 2,
        description: '* "Little Legends":/pools/27971\r\n* Little Legends 2\r\n* "Little Legends 3":/pools/27481',
      },
    ],
    score: 108,
    favCount: 233,
    uploader: null,
    comments: [],
  });
});

test("e621: with the metadata option, each pool's post_ids give the post's place; a negative total, rating e, no sources", () => {
  const item = readE621(fixture('e621-metadata.json'), media);
  assert.ok(typeof item !== 'string');
  assert.deepEqual(item.pools, [
    { key: '27492', name: 'Little Legends 2', position: 4, description: null },
    { key: '31001', name: 'Eevee favourites', position: 2, description: null },
  ]);
  assert.equal(item.score, -5);
  assert.equal(item.rating, 'unsafe');
  assert.equal(item.source, null);
  assert.equal(item.parentOriginId, null);
});

test('e621: pools as bare ids have no name and no place; a pool named twice is one ref', () => {
  const item = readE621({ id: 5, tags: {}, file: { md5: null }, pools: [7, 8], pool: { id: 8, name: 'Eight' }, num: 3 }, media);
  assert.ok(typeof item !== 'string');
  assert.deepEqual(item.pools, [
    { key: '8', name: 'Eight', position: 3, description: null },
    { key: '7', name: null, position: null, description: null },
  ]);
  assert.equal(item.md5, null);
});
