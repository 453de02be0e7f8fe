import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { detect, readSidecar } from './index.ts';

const dir = path.join(import.meta.dirname, '../../../../test/fixtures/sidecars');
const raw = (name: string) => fs.readFileSync(path.join(dir, name), 'utf8');
const media = { file: '/in/x.jpg', label: 'x.jpg' };

test("detect: each fixture's shape from its content alone", () => {
  const shapes = Object.fromEntries(fs.readdirSync(dir).map((f) => [f, detect(JSON.parse(raw(f)))]));
  assert.deepEqual(shapes, {
    'danbooru-pool.json': 'danbooru',
    'e621-metadata.json': 'e621',
    'e621-pool.json': 'e621',
    'gelbooru-pool.json': 'gelbooru',
    'ourboard-metadata.json': 'danbooru',
    'safebooru-v02.json': 'gelbooru',
    'szurubooru-post.json': 'szurubooru',
    'yandere-tags.json': 'moebooru',
  });
});

test('detect: a known instance name parts Moebooru from Gelbooru when the fields do not; other JSON is no shape', () => {
  assert.equal(detect({ id: 1, tags: 'a', category: 'konachan' }), 'moebooru');
  assert.equal(detect({ id: 1, tags: 'a', category: 'rule34' }), 'gelbooru');
  assert.equal(detect({ id: 1, tags: 'a', category: 'somewhere' }), null);
  assert.equal(detect({ id: 1, tags: 'a', created_at: 1672574400 }), 'moebooru');
  assert.equal(detect({ id: 1, tags: 'a', created_at: 'Sat Jan 01 12:34:56 -0500 2022' }), 'gelbooru');
  assert.equal(detect([{ tag_string: 'a' }]), null);
  assert.equal(detect({ extractor: 'gallery-dl config' }), null);
  assert.equal(detect('tags'), null);
});

test('readSidecar: JSON by the name, plain text otherwise; what is no JSON or of no shape is said', () => {
  const item = readSidecar('x.jpg.json', `\uFEFF${raw('yandere-tags.json')}`, media);
  assert.ok(typeof item !== 'string');
  assert.equal(item.origin, 'yandere');
  assert.equal(item.label, 'x.jpg');
  const tags = readSidecar('x.txt', 'artist:jane\n', media);
  assert.ok(typeof tags !== 'string');
  assert.deepEqual(tags.tags, [{ name: 'jane', category: 'artist' }]);
  assert.match(readSidecar('x.JSON', '{"id": 1,', media) as string, /^the sidecar is not JSON/);
  assert.match(readSidecar('x.json', '{"id": 1}', media) as string, /of no shape this import reads/);
});
