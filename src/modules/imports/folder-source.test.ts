import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import * as fx from '../../../test/media-fixtures.ts';
import { pair } from './folder-source-pairs.ts';
import { folderSource } from './folder-source.ts';
import type { ImportItem, SourceEntry } from './import-item.ts';

const fixtures = path.join(import.meta.dirname, '../../../test/fixtures/sidecars');
const fixture = async (name: string, change: Record<string, unknown> = {}) => ({
  ...JSON.parse(await fs.readFile(path.join(fixtures, name), 'utf8')),
  ...change,
});

let root: string;

/** A folder as gallery-dl and Hydrus leave them, with what goes wrong in such folders. */
before(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'ib-folder-source-'));
  const files: Record<string, Buffer | string | object> = {
    // Files in an order that is not the posts' ids: the pool's order comes from the ids.
    'danbooru/pool 19823/a_6123458.png': await fx.png(1, 8, 8),
    'danbooru/pool 19823/a_6123458.png.json': await fixture('danbooru-pool.json', { id: 6123458 }),
    'danbooru/pool 19823/b_6123456.jpg': await fx.jpegWithExifAndGps(2),
    'danbooru/pool 19823/b_6123456.jpg.json': await fixture('danbooru-pool.json'),
    'danbooru/pool 19823/c_6123457.png': await fx.png(3, 8, 8),
    'danbooru/pool 19823/c_6123457.png.json': await fixture('danbooru-pool.json', { id: 6123457 }),
    // Places given (num): they order the pool, against the ids.
    'e621/p1.png': await fx.png(4, 8, 8),
    'e621/p1.json': await fixture('e621-pool.json'),
    'e621/p2.png': await fx.png(5, 8, 8),
    'e621/p2.png.json': await fixture('e621-pool.json', { id: 3181060, num: 1 }),
    'e621/p2.png.txt': 'ignored_beside_the_json\n',
    'hydrus/cat.JPG': await fx.jpegWithExifAndGps(6),
    'hydrus/cat.JPG.txt': 'creator:jane doe\nrating:safe\ncat\n',
    'hydrus/dog.webp': await fx.webp(7),
    'broken/bad.png': await fx.png(8, 8, 8),
    'broken/bad.png.json': '{"id": 1, "tag_string": ',
    'broken/odd.png': await fx.png(9, 8, 8),
    'broken/odd.png.json': { hello: 'world' },
    'broken/gone.jpg.json': await fixture('danbooru-pool.json', { id: 1 }),
    'broken/stray.json': await fixture('yandere-tags.json'),
    'broken/config.json': { extractor: { danbooru: { metadata: true } } },
    'broken/notes.txt': 'downloaded in May\n',
    'broken/archive.sqlite3': 'SQLite format 3\u0000',
    'broken/twin.jpg': await fx.jpegWithExifAndGps(10),
    'broken/twin.png': await fx.png(11, 8, 8),
    'broken/twin.json': await fixture('danbooru-pool.json', { id: 2 }),
    'broken/.hidden.png': await fx.png(12, 8, 8),
    '.cache/x.png': await fx.png(13, 8, 8),
  };
  for (const [name, content] of Object.entries(files)) {
    await fs.mkdir(path.dirname(path.join(root, name)), { recursive: true });
    const bytes = Buffer.isBuffer(content) || typeof content === 'string' ? content : JSON.stringify(content);
    await fs.writeFile(path.join(root, name), bytes);
  }
});

after(() => fs.rm(root, { recursive: true, force: true }));

async function read(dir: string): Promise<SourceEntry[]> {
  const out: SourceEntry[] = [];
  for await (const e of folderSource(dir).entries()) out.push(e);
  return out;
}

const post = (entries: SourceEntry[], label: string): ImportItem => {
  const e = entries.find((x) => x.kind === 'post' && x.item.label === label);
  assert.ok(e?.kind === 'post', `a post ${label}`);
  return e.item;
};

test('folder source: every media file in name order, each paired with its sidecar, and each problem once', async () => {
  const entries = await read(root);
  const seen = entries.map((e) => (e.kind === 'post' ? `post ${e.item.label}` : `problem ${e.problem.label}: ${e.problem.reason}`));
  assert.deepEqual(seen, [
    'problem broken/bad.png.json: the sidecar is not JSON: Unexpected end of JSON input',
    'problem broken/odd.png.json: the sidecar is of no shape this import reads (gallery-dl metadata of danbooru, e621, moebooru, gelbooru, szurubooru)',
    'post broken/twin.jpg',
    'post broken/twin.png',
    'problem broken/gone.jpg.json: its media file gone.jpg is missing',
    'problem broken/stray.json: its media file yande.re 1023456 armor ouzoku sasaki_tamaru sword.jpg is missing',
    'problem broken/twin.json: several media files share its name (twin.jpg, twin.png): name each sidecar after its whole file name',
    'post danbooru/pool 19823/a_6123458.png',
    'post danbooru/pool 19823/b_6123456.jpg',
    'post danbooru/pool 19823/c_6123457.png',
    'post e621/p1.png',
    'post e621/p2.png',
    'post hydrus/cat.JPG',
    'post hydrus/dog.webp',
  ]);
  const danbooru = post(entries, 'danbooru/pool 19823/b_6123456.jpg');
  assert.equal(danbooru.file, path.join(root, 'danbooru/pool 19823/b_6123456.jpg'));
  assert.equal(danbooru.origin, 'danbooru');
  assert.equal(danbooru.originId, '6123456');
  assert.equal(post(entries, 'e621/p1.png').originId, '3181052', 'a sidecar named for the file without its extension');
  assert.equal(post(entries, 'e621/p2.png').origin, 'e621', 'the .json before the .txt');
  const cat = post(entries, 'hydrus/cat.JPG');
  assert.deepEqual([cat.origin, cat.originId, cat.rating], ['file', null, 'safe']);
  assert.deepEqual(cat.tags, [
    { name: 'jane doe', category: 'artist' },
    { name: 'cat', category: 'general' },
  ]);
  const dog = post(entries, 'hydrus/dog.webp');
  assert.deepEqual([dog.origin, dog.originId, dog.tags, dog.pools], ['file', null, [], []], 'no sidecar: the file alone');
  assert.deepEqual(post(entries, 'broken/twin.jpg').tags, [], 'a sidecar two files could claim is given to neither');
});

test('folder source: total counts the media files, hidden ones and those of hidden folders left out', async () => {
  assert.equal(await folderSource(root).total(), 11);
});

test("folder source: board's pools gather the posts' refs (name, description), ordered by place when given, else by id", async () => {
  const source = folderSource(root);
  for await (const _ of source.entries());
  assert.deepEqual(await source.board(), {
    tags: [],
    aliases: [],
    implications: [],
    pools: [
      {
        origin: 'danbooru',
        key: '19823',
        name: 'Miku in the Sky',
        description: 'Sky-themed pieces by [[kanzaki hiro]].',
        postOriginIds: ['6123456', '6123457', '6123458'],
      },
      {
        origin: 'e621',
        key: '27492',
        name: 'Little Legends 2',
        description: '* "Little Legends":/pools/27971\r\n* Little Legends 2\r\n* "Little Legends 3":/pools/27481',
        postOriginIds: ['3181060', '3181052'],
      },
    ],
  });
});

test('folder source: a pool with no name in any post is named for its origin and id', async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ib-folder-pool-'));
  try {
    await fs.writeFile(path.join(dir, 'y.jpg'), await fx.jpegWithExifAndGps(14));
    await fs.writeFile(path.join(dir, 'y.jpg.json'), JSON.stringify(await fixture('yandere-tags.json')));
    const source = folderSource(dir);
    for await (const _ of source.entries());
    assert.deepEqual((await source.board()).pools, [
      { origin: 'yandere', key: '318', name: 'yandere pool 318', description: null, postOriginIds: ['1023456'] },
    ]);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
});

test("pairing: a sidecar named for a whole file name is that file's alone; names match in any case", () => {
  assert.deepEqual(pair(['a.jpg', 'a.jpg.json', 'a.jpg.png', 'B.PNG', 'b.json', 'c.gif', 'C.GIF.TXT']), {
    media: [
      { name: 'a.jpg', sidecar: 'a.jpg.json' },
      { name: 'a.jpg.png', sidecar: null },
      { name: 'B.PNG', sidecar: 'b.json' },
      { name: 'c.gif', sidecar: 'C.GIF.TXT' },
    ],
    orphans: [],
  });
});
