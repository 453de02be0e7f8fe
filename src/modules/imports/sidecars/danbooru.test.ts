import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { readDanbooru } from './danbooru.ts';

const fixture = (name: string) => JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '../../../../test/fixtures/sidecars', name), 'utf8'));
const media = { file: '/in/danbooru/danbooru_6123456_d34e.jpg', label: 'danbooru/danbooru_6123456_d34e.jpg' };

test('danbooru: a post from the pool extractor, with tags by kind, rating g, its pool and parent', () => {
  assert.deepEqual(readDanbooru(fixture('danbooru-pool.json'), media), {
    origin: 'danbooru',
    originId: '6123456',
    file: media.file,
    label: media.label,
    md5: 'd34e4cf0a437a5d65f8e82b7bcd02606',
    tags: [
      { name: '1girl', category: 'general' },
      { name: 'blue_sky', category: 'general' },
      { name: 'hatsune_miku', category: 'character' },
      { name: 'highres', category: 'meta' },
      { name: 'kanzaki_hiro', category: 'artist' },
      { name: 'long_hair', category: 'general' },
      { name: 'smile', category: 'general' },
      { name: 'solo', category: 'general' },
      { name: 'twintails', category: 'general' },
      { name: 'vocaloid', category: 'copyright' },
    ],
    rating: 'safe',
    source: 'https://twitter.com/kanzaki_hiro/status/1635612345678901234',
    title: null,
    description: null,
    createdAt: Date.parse('2023-03-14T13:26:53.589Z'),
    parentOriginId: '6123400',
    // gallery-dl drops the pool's post_ids: no place, the pool's order is made from the posts' ids.
    pools: [{ key: '19823', name: 'Miku in the Sky', position: null, description: 'Sky-themed pieces by [[kanzaki hiro]].' }],
    score: 47,
    favCount: 61,
    // Danbooru names the uploader by id alone.
    uploader: null,
    comments: [],
  });
});

test("danbooru: a custom instance's post with the metadata option: origin, uploader, commentary; a source that is no URL is left out", () => {
  const item = readDanbooru(fixture('ourboard-metadata.json'), media);
  assert.ok(typeof item !== 'string');
  assert.equal(item.origin, 'ourboard');
  assert.equal(item.originId, '412');
  assert.equal(item.uploader, 'mika_s');
  assert.equal(item.title, '窓辺の猫');
  assert.equal(item.description, 'うちの猫です');
  assert.equal(item.source, null, 'pixiv #104123456 is no http(s) URL');
  assert.equal(item.rating, 'safe', "Danbooru's s (sensitive since 2022) is safe here");
  assert.equal(item.parentOriginId, null);
  assert.deepEqual(item.pools, []);
  assert.deepEqual(
    item.tags.filter((t) => t.category !== 'general'),
    [
      { name: 'original', category: 'copyright' },
      { name: 'watanabe_ren', category: 'artist' },
    ],
  );
});

test('danbooru: ratings q and e, a tag with no kind list, no md5, and a post with no id', () => {
  const base = { id: 9, tag_string: 'a b', tag_string_general: 'a', rating: 'q', md5: 'not-a-hash', created_at: 'yesterday' };
  const item = readDanbooru(base, media);
  assert.ok(typeof item !== 'string');
  assert.equal(item.origin, 'danbooru', 'no category: the board gallery-dl names Danbooru');
  assert.deepEqual(item.tags, [
    { name: 'a', category: 'general' },
    { name: 'b', category: null },
  ]);
  assert.equal(item.rating, 'sketchy');
  assert.equal(item.md5, null);
  assert.equal(item.createdAt, null);
  assert.equal((readDanbooru({ ...base, rating: 'e' }, media) as { rating: string }).rating, 'unsafe');
  assert.match(readDanbooru({ tag_string: 'a' }, media) as string, /no post id/);
});
