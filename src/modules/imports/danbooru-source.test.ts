import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, test } from 'node:test';
import { type FakeBoard, type FakeBoardOptions, fakeBoard, type Json } from './danbooru-fake-board.ts';
import { type DanbooruSourceOptions, danbooruSource } from './danbooru-source.ts';
import type { ImportItem, ImportProblem } from './import-item.ts';

const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');
const bytesOf = (id: number) => Buffer.from(`file of post ${id} `.repeat(50));

/** A Danbooru post whose file is at `<prefix>/data/<id>.png`. */
function post(id: number, extra: Json = {}, prefix = ''): Json {
  return {
    id,
    md5: md5(bytesOf(id)),
    file_url: `${prefix}/data/${id}.png`,
    file_ext: 'png',
    rating: 'g',
    tag_string_general: 'cat',
    tag_string_artist: '',
    tag_string_copyright: '',
    tag_string_character: '',
    tag_string_meta: '',
    created_at: '2024-01-02T03:04:05.678-05:00',
    last_commented_at: null,
    ...extra,
  };
}
const filesOf = (posts: Json[], prefix = '') => Object.fromEntries(posts.map((p) => [`${prefix}/data/${p.id}.png`, bytesOf(p.id)]));

const open: FakeBoard[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const b of open.splice(0)) await b.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

async function board(o: FakeBoardOptions) {
  const b = await fakeBoard(o);
  open.push(b);
  return b;
}

/** A source on `b` whose waits are recorded instead of slept. */
function sourceOn(b: FakeBoard, opts: Partial<DanbooruSourceOptions> = {}) {
  const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'danbooru-source-'));
  dirs.push(tmpDir);
  const waits: number[] = [];
  const source = danbooruSource({ url: b.url, tmpDir, sleep: async (ms) => void waits.push(ms), ...opts });
  return { source, waits, tmpDir };
}

async function readAll(source: ReturnType<typeof danbooruSource>) {
  const items: ImportItem[] = [];
  const problems: ImportProblem[] = [];
  for await (const e of source.entries()) {
    if (e.kind === 'post') items.push(e.item);
    else problems.push(e.problem);
  }
  items.sort((a, b) => Number(a.originId) - Number(b.originId));
  return { items, problems };
}

const postAsks = (b: FakeBoard) => b.requests.filter((r) => r.path.endsWith('/posts.json') && !r.path.includes('/counts/'));
const postPages = (b: FakeBoard) => postAsks(b).map((r) => r.query.get('page'));

test('reads every page down by b<id> on a board that caps limit below 200, and maps each post', async () => {
  const prefix = '/booru';
  const posts = [1, 2, 3, 5, 6, 7].map((id) => post(id, {}, prefix));
  posts[0] = post(
    1,
    {
      rating: 'e',
      tag_string_general: 'cat dog',
      tag_string_artist: 'someone',
      source: 'https://x.test/1',
      parent_id: 7,
      score: 12,
      fav_count: 3,
      uploader_name: 'ann',
    },
    prefix,
  );
  posts[1] = post(2, { rating: 'q', source: 'Pixiv', uploader: { name: 'bob' }, file_url: 'data/2.png' }, prefix);
  posts[2] = post(3, { rating: 's', source: `https://x.test/${'a'.repeat(1100)}` }, prefix);
  posts.push(post(4, { file_url: undefined, md5: undefined }, prefix));
  posts.push({ id: 8, md5: md5(bytesOf(8)), file_url: `${prefix}/data/8.png`, tag_string: 'plain tags', rating: 'x' });
  const b = await board({ prefix, posts, files: filesOf(posts, prefix), postCap: 3 });
  const { source, tmpDir } = sourceOn(b);
  assert.equal(await source.total(), 8);
  const { items, problems } = await readAll(source);

  assert.deepEqual(postPages(b), [null, 'b6', 'b3', 'b1']);
  assert.ok(postAsks(b).every((r) => r.query.get('limit') === '200'));
  assert.deepEqual(
    items.map((i) => i.originId),
    ['1', '2', '3', '5', '6', '7', '8'],
  );
  assert.deepEqual(problems, [{ label: `${b.url.slice(7)} #4`, reason: 'no file_url (restricted or deleted post)' }]);
  const [one, two, three] = items;
  assert.equal(one.origin, `${new URL(b.url).host}/booru`);
  assert.equal(one.label, `${one.origin} #1`);
  assert.deepEqual(one.tags, [
    { name: 'cat', category: 'general' },
    { name: 'dog', category: 'general' },
    { name: 'someone', category: 'artist' },
  ]);
  assert.deepEqual(
    items.map((i) => i.rating),
    ['unsafe', 'sketchy', 'safe', 'safe', 'safe', 'safe', null],
  );
  assert.deepEqual([one.source, two.source, three.source], ['https://x.test/1', null, null]);
  assert.equal(one.createdAt, Date.UTC(2024, 0, 2, 8, 4, 5, 678));
  assert.deepEqual([one.parentOriginId, one.score, one.favCount, one.uploader, two.uploader, three.uploader], ['7', 12, 3, 'ann', 'bob', null]);
  assert.deepEqual(items[6].tags, [
    { name: 'plain', category: null },
    { name: 'tags', category: null },
  ]);
  for (const item of items) {
    assert.equal(item.temporary, true);
    assert.equal(path.dirname(item.file), tmpDir);
    assert.deepEqual(fs.readFileSync(item.file), bytesOf(Number(item.originId)));
    assert.equal(item.md5, md5(bytesOf(Number(item.originId))));
    assert.equal(item.title, null);
  }
});

test('429 waits as Retry-After says (seconds or a date), 503 and a dropped connection back off, then it goes on', async () => {
  const now = Date.parse('2026-06-15T12:00:00Z');
  const posts = [post(1), post(2), post(3)];
  const served = new Map<string, number>();
  const b = await board({
    posts,
    files: filesOf(posts),
    intercept: (p) => {
      const n = (served.get(p) ?? 0) + 1;
      served.set(p, n);
      if (p === '/posts.json' && n === 1) return { status: 429, headers: { 'retry-after': '7' } };
      if (p === '/posts.json' && n === 2) return { status: 429, headers: { 'retry-after': new Date(now + 30_000).toUTCString() } };
      if (p === '/data/2.png' && n === 1) return { status: 503 };
      if (p === '/data/3.png' && n <= 2) return { status: 200, destroy: true };
      return undefined;
    },
  });
  const { source, waits } = sourceOn(b, { now: () => now, inFlight: 1 });
  const { items, problems } = await readAll(source);
  assert.deepEqual(problems, []);
  assert.deepEqual(
    items.map((i) => i.originId),
    ['1', '2', '3'],
  );
  assert.deepEqual(waits.slice(0, 2), [7000, 30_000]);
  // The 503 once (1 s); the dropped connection twice (1 s, then 2 s).
  assert.deepEqual(waits.slice(2).sort(), [1000, 1000, 2000]);
});

test("a file whose MD5 is not the post's is a problem naming both, its temporary file gone; a failed download too", async () => {
  const posts = [post(1), post(2, { md5: 'ffffffffffffffffffffffffffffffff' }), post(3)];
  const files = filesOf(posts);
  delete files['/data/3.png'];
  const b = await board({ posts, files });
  const { source, tmpDir } = sourceOn(b, { maxRetries: 1 });
  const { items, problems } = await readAll(source);
  assert.deepEqual(
    items.map((i) => i.originId),
    ['1'],
  );
  const byLabel = Object.fromEntries(problems.map((p) => [p.label.split('#')[1], p.reason]));
  assert.match(byLabel[2], new RegExp(`MD5 is ${md5(bytesOf(2))}, the post says ffffffffffffffffffffffffffffffff`));
  assert.match(byLabel[3], /download failed: HTTP 404/);
  assert.deepEqual(fs.readdirSync(tmpDir), [path.basename(items[0].file)]);
});

test('at most inFlight requests at once, downloads included', async () => {
  const posts = Array.from({ length: 12 }, (_, i) => post(i + 1, { last_commented_at: '2024-01-01T00:00:00Z' }));
  const b = await board({ posts, files: filesOf(posts), fileDelayMs: 40 });
  const { source } = sourceOn(b, { inFlight: 3 });
  const { items } = await readAll(source);
  assert.equal(items.length, 12);
  assert.equal(b.maxInFlight, 3);
});

test('sends the login as HTTP Basic to the board only, never to the host of its files, with our User-Agent', async () => {
  const cdnPosts = [post(1), post(2)];
  const cdn = await board({ files: filesOf(cdnPosts) });
  const posts = cdnPosts.map((p) => ({ ...p, file_url: `${cdn.url}${p.file_url}` }));
  const authorization = `Basic ${Buffer.from('alice:KEY123').toString('base64')}`;
  const b = await board({ posts, authorization });
  const { source } = sourceOn(b, { login: 'alice', apiKey: 'KEY123' });
  const { items } = await readAll(source);
  assert.equal(items.length, 2);
  assert.ok(b.requests.length > 0 && b.requests.every((r) => r.headers.authorization === authorization));
  assert.ok(cdn.requests.length === 2 && cdn.requests.every((r) => r.headers.authorization === undefined));
  assert.match(String(b.requests[0].headers['user-agent']), /^imageboard-import\/\d+\.\d+\.\d+/);
});

test('a refused login (401) fails the whole import with a message that says what to check', async () => {
  const posts = [post(1)];
  const b = await board({ posts, files: filesOf(posts), authorization: `Basic ${Buffer.from('alice:RIGHT').toString('base64')}` });
  const wrong = sourceOn(b, { login: 'alice', apiKey: 'WRONG' }).source;
  await assert.rejects(readAll(wrong), /the board refused the login: check --login and --api-key \(HTTP 401/);
  await assert.rejects(wrong.total(), /refused the login/);
  await assert.rejects(readAll(sourceOn(b).source), /refused to answer without a login: give --login and --api-key/);
});

test('comments of a page in one batched request, mapped; only posts that show comments are asked', async () => {
  const posts = [post(1, { last_commented_at: '2024-01-01T00:00:00Z' }), post(2), post(3, { last_commented_at: '2024-01-01T00:00:00Z' })];
  const comments = [
    { id: 10, post_id: 1, body: 'first', created_at: '2024-01-01T00:00:00.000Z', creator_name: 'ann', is_deleted: false },
    { id: 11, post_id: 1, body: 'gone', created_at: '2024-01-01T00:01:00.000Z', creator_name: 'ann', is_deleted: true },
    { id: 12, post_id: 3, body: 'third', created_at: '2024-01-02T00:00:00.000Z', creator_name: 'cy', is_deleted: false },
    { id: 13, post_id: 1, body: 'second', created_at: '2024-01-03T00:00:00.000Z', creator_name: 'bo', is_deleted: false },
    { id: 14, post_id: 2, body: 'not asked for', created_at: '2024-01-03T00:00:00.000Z', creator_name: 'bo', is_deleted: false },
  ];
  const expected = (items: ImportItem[]) => {
    assert.deepEqual(items[0].comments, [
      { key: '10', author: 'ann', body: 'first', createdAt: Date.UTC(2024, 0, 1) },
      { key: '13', author: 'bo', body: 'second', createdAt: Date.UTC(2024, 0, 3) },
    ]);
    assert.deepEqual(items[1].comments, []);
    assert.deepEqual(items[2].comments, [{ key: '12', author: 'cy', body: 'third', createdAt: Date.UTC(2024, 0, 2) }]);
  };
  const commentAsks = (b: FakeBoard) =>
    b.requests.filter((r) => r.path === '/comments.json').map((r) => `${r.query.get('search[post_id]')} p${r.query.get('page')}`);

  // Danbooru: a comma list, and `only` with the creator as an object.
  const danbooru = await board({ posts, files: filesOf(posts), comments });
  expected((await readAll(sourceOn(danbooru).source)).items);
  assert.deepEqual(commentAsks(danbooru), ['3,1 p1', '3,1 p2']);
  assert.ok(danbooru.requests.some((r) => r.query.get('group_by') === 'comment' && r.query.get('only')?.includes('creator')));

  // A board taking one post id at a time and refusing `only` (this board's own API takes one id).
  const plain = await board({ posts, files: filesOf(posts), comments, commaLists: false, refuseOnly: true });
  expected((await readAll(sourceOn(plain).source)).items);
  assert.deepEqual(commentAsks(plain).slice(-4), ['3 p1', '3 p2', '1 p1', '1 p2']);
});

const relationBoard = (extra: FakeBoardOptions = {}): FakeBoardOptions => {
  const posts = [
    post(1, { tag_string_general: 'cat dog', tag_string_character: 'tama' }),
    post(2, { tag_string_general: 'cat' }),
    post(3, { tag_string_general: 'bird' }),
  ];
  return {
    posts,
    files: filesOf(posts),
    aliases: [
      { id: 1, antecedent_name: 'kitty', consequent_name: 'cat', status: 'active' },
      { id: 2, antecedent_name: 'birb', consequent_name: 'bird', status: 'active' },
      { id: 3, antecedent_name: 'doggo', consequent_name: 'dog', status: 'deleted' },
    ],
    implications: null,
    pools: [
      { id: 5, name: 'cats_and_birds', description: 'both', post_ids: [3, 1], is_deleted: false },
      { id: 6, name: 'birds', description: '', post_ids: [3], is_deleted: false },
      { id: 7, name: 'old', description: '', post_ids: [2], is_deleted: true },
    ],
    wiki: [
      { id: 1, title: 'cat', body: 'A cat.', is_deleted: false },
      { id: 2, title: 'bird', body: 'A bird.', is_deleted: false },
      { id: 3, title: 'tama', body: 'A character.', is_deleted: false },
    ],
    ...extra,
  };
};

test('with --tags, relations and pools are kept only where they touch the imported posts; wiki pages asked by title', async () => {
  const b = await board(relationBoard());
  const { source } = sourceOn(b, { tags: 'cat' });
  const { items } = await readAll(source);
  assert.deepEqual(
    items.map((i) => i.originId),
    ['1', '2'],
  );
  const data = await source.board();
  assert.deepEqual(data.aliases, [{ from: 'kitty', to: 'cat' }]);
  assert.deepEqual(data.implications, []);
  assert.deepEqual(data.pools, [{ origin: new URL(b.url).host, key: '5', name: 'cats and birds', description: 'both', postOriginIds: ['3', '1'] }]);
  assert.deepEqual(
    data.tags.sort((x, y) => x.name.localeCompare(y.name)),
    [
      { name: 'cat', category: 'general', description: 'A cat.' },
      { name: 'dog', category: 'general', description: null },
      { name: 'tama', category: 'character', description: 'A character.' },
    ],
  );
  const wikiAsks = b.requests.filter((r) => r.path === '/wiki_pages.json');
  assert.equal(wikiAsks.length, 1);
  assert.deepEqual(wikiAsks[0].query.get('search[title_space]')?.split(' ').sort(), ['cat', 'dog', 'tama']);
});

test('with --tags on a board that ignores search[title_space], the wiki is paged through instead', async () => {
  const b = await board(relationBoard({ titleSpace: false }));
  const { source } = sourceOn(b, { tags: 'cat' });
  await readAll(source);
  const data = await source.board();
  assert.deepEqual(data.tags.map((t) => [t.name, t.description]).sort(), [
    ['cat', 'A cat.'],
    ['dog', null],
    ['tama', 'A character.'],
  ]);
  const wikiAsks = b.requests.filter((r) => r.path === '/wiki_pages.json');
  assert.deepEqual(
    wikiAsks.map((r) => [r.query.get('page'), r.query.has('search[title_space]')]),
    [
      [null, true],
      ['1', false],
      ['2', false],
    ],
  );
});

test('without --tags, every active relation is kept and the wiki is paged through', async () => {
  const b = await board(relationBoard());
  const { source } = sourceOn(b);
  await readAll(source);
  const data = await source.board();
  assert.deepEqual(data.aliases, [
    { from: 'birb', to: 'bird' },
    { from: 'kitty', to: 'cat' },
  ]);
  assert.deepEqual(
    data.pools.map((p) => p.key),
    ['6', '5'],
  );
  assert.equal(data.tags.find((t) => t.name === 'bird')?.description, 'A bird.');
  const wikiAsks = b.requests.filter((r) => r.path === '/wiki_pages.json');
  assert.deepEqual(
    wikiAsks.map((r) => [r.query.get('page'), r.query.has('search[title_space]')]),
    [
      ['1', false],
      ['2', false],
    ],
  );
});

test('a reader that stops early leaves no temporary file but the ones it was given', async () => {
  const posts = Array.from({ length: 10 }, (_, i) => post(i + 1));
  const b = await board({ posts, files: filesOf(posts), fileDelayMs: 20 });
  const { source, tmpDir } = sourceOn(b, { inFlight: 3 });
  const given: string[] = [];
  for await (const e of source.entries()) {
    if (e.kind === 'post') given.push(path.basename(e.item.file));
    if (given.length === 2) break;
  }
  assert.deepEqual(fs.readdirSync(tmpDir).sort(), given.sort());
});
