import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { readMoebooru } from './moebooru.ts';

const fixture = (name: string) => JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '../../../../test/fixtures/sidecars', name), 'utf8'));
const media = { file: '/in/yandere/yandere_1023456_5f4d.jpg', label: 'yandere/yandere_1023456_5f4d.jpg' };

test('moebooru: a yande.re post with the tags option: circle as artist, faults as meta, unix seconds, author, its pool', () => {
  assert.deepEqual(readMoebooru(fixture('yandere-tags.json'), media), {
    origin: 'yandere',
    originId: '1023456',
    file: media.file,
    label: media.label,
    md5: '5f4dcc3b5aa765d61d8327deb882cf99',
    tags: [
      { name: 'armor', category: 'general' },
      { name: 'sasaki_tamaru', category: 'artist' },
      { name: 'ouzoku', category: 'copyright' },
      { name: 'softhouse_chara', category: 'artist' },
      { name: 'sword', category: 'general' },
      { name: 'thighhighs', category: 'general' },
      { name: 'jpeg_artifacts', category: 'meta' },
    ],
    rating: 'sketchy',
    source: 'https://www.pixiv.net/artworks/104123456',
    title: null,
    description: null,
    createdAt: 1672574400_000,
    parentOriginId: '1023400',
    pools: [{ key: '318', name: null, position: null, description: null }],
    score: 38,
    favCount: null,
    uploader: 'Mr_GT',
    comments: [],
  });
});

test('moebooru: without the tags option every tag is of no known kind; a kind of no name of ours neither', () => {
  const item = readMoebooru({ id: 1, tags: 'a  b', tags_style: 'b', created_at: 0, rating: 'e', parent_id: null, source: '' }, media);
  assert.ok(typeof item !== 'string');
  assert.deepEqual(item.tags, [
    { name: 'a', category: null },
    { name: 'b', category: null },
  ]);
  assert.equal(item.origin, 'moebooru');
  assert.equal(item.createdAt, null);
  assert.equal(item.rating, 'unsafe');
  assert.equal(item.parentOriginId, null);
  assert.equal(item.source, null);
});
