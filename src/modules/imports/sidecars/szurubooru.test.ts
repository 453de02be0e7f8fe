import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { readSzurubooru } from './szurubooru.ts';

const fixture = (name: string) => JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '../../../../test/fixtures/sidecars', name), 'utf8'));
const media = { file: '/in/foalcon/30092_4_b7d5.png', label: 'foalcon/30092_4_b7d5.png' };

test("szurubooru: a post after gallery-dl's _prepare: categories by name, the first URL of a multi-line source, user, pools, comments", () => {
  assert.deepEqual(readSzurubooru(fixture('szurubooru-post.json'), media), {
    origin: 'foalcon',
    originId: '30092',
    file: media.file,
    label: media.label,
    md5: 'b7d56e941888b624a1c3e5f7092b4d6e',
    tags: [
      { name: 'field', category: 'general' },
      { name: 'grass', category: 'general' },
      { name: 'someartist', category: 'artist' },
      { name: 'sunny_(character)', category: 'character' },
      // Categories named as none of ours (series, species) give none.
      { name: 'my_little_pony', category: null },
      { name: 'earth_pony', category: null },
    ],
    rating: 'sketchy',
    source: 'https://www.deviantart.com/someartist/art/Field-Day-881234567',
    title: null,
    description: null,
    createdAt: Date.parse('2021-05-29T20:49:45.380Z'),
    // Relations are no parent.
    parentOriginId: null,
    pools: [{ key: '55', name: 'Summer_Fields', position: null, description: null }],
    score: 7,
    favCount: 5,
    uploader: 'stablehand',
    comments: [{ key: '812', author: 'meadowlark', body: 'Lovely colours!', createdAt: Date.parse('2021-05-30T07:01:02.123Z') }],
  });
});

test("szurubooru: the API's own shape, tags as {names, category}, safety unsafe, an anonymous uploader", () => {
  const item = readSzurubooru(
    {
      id: 12,
      safety: 'unsafe',
      creationTime: '2020-01-02T03:04:05.678901Z',
      user: null,
      tags: [
        { names: ['blue_sky', 'sky_blue'], category: 'default', usages: 4 },
        { names: ['jane_doe'], category: 'artist', usages: 1 },
        { names: ['stub'], category: 'Meta' },
      ],
    },
    media,
  );
  assert.ok(typeof item !== 'string');
  assert.deepEqual(item.tags, [
    { name: 'blue_sky', category: 'general' },
    { name: 'jane_doe', category: 'artist' },
    { name: 'stub', category: 'meta' },
  ]);
  assert.equal(item.rating, 'unsafe');
  assert.equal(item.uploader, null);
  assert.equal(item.origin, 'szurubooru');
  assert.equal(item.createdAt, Date.parse('2020-01-02T03:04:05.678Z'));
});
