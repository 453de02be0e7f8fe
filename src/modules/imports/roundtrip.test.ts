// A board taken out and brought in again (issue 57, points 2 and 3): board A is exported and the
// export imported into board B, and A is read through its Danbooru API into another board B;
// post by post, B holds what A held (by the bytes of each original), with its tags' kinds,
// aliases, implications and pools in order. The Danbooru route carries no titles or descriptions
// (Danbooru's posts have none): those come only through an export.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { type App, buildApp } from '../../app.ts';
import { testConfig } from '../../config.ts';
import { register, setAccount } from '../../../test/auth-helpers.ts';
import { type Ctx, eachDatabase, TestClock } from '../../../test/helpers.ts';
import { boardView, importRun, type PostView, reportLines, summaryCounts } from '../../../test/import-helpers.ts';
import * as fx from '../../../test/media-fixtures.ts';
import { multipart } from '../../../test/multipart.ts';
import { exportCommand } from '../../cli/export.ts';

const HOUR = 3_600_000;

/** Board A: the board people leave, with a bit of everything, listening on loopback. */
const a = {} as { app: App; dir: string; root: string; exportDir: string; view: Map<string, PostView>; exif: string };

async function upload(headers: Record<string, string>, data: Buffer, name: string, fields: Record<string, string>): Promise<string> {
  const m = multipart(fields, [{ filename: name, contentType: name.endsWith('.jpg') ? 'image/jpeg' : 'image/png', data }]);
  const res = await a.app.inject({ method: 'POST', url: '/api/upload', payload: m.payload, headers: { ...m.headers, ...headers } });
  assert.equal(res.statusCode, 201, res.body);
  return String(res.json().post.id);
}

async function call(method: 'POST' | 'PATCH', url: string, headers: Record<string, string>, payload: object) {
  const res = await a.app.inject({ method, url, headers, payload });
  assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.json();
}

/** Built once, for every suite below. */
let built: Promise<void> | null = null;
const boardA = () => (built ??= buildBoardA());

async function buildBoardA(): Promise<void> {
  a.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ib-roundtrip-'));
  const clock = new TestClock();
  a.app = await buildApp(testConfig({ dataDir: a.dir, databaseUrl: '', rateLimits: false }), { clock });
  await a.app.listen({ port: 0, host: '127.0.0.1' });
  a.root = `http://127.0.0.1:${(a.app.server.address() as { port: number }).port}`;
  const admin = await register(a.app, 'rt_admin');
  await setAccount(a.app.deps.db, 'rt_admin', { role: 'admin' });
  const h = admin.headers;
  const ids: string[] = [];
  const ratings = ['safe', 'sketchy', 'unsafe'];
  for (let i = 0; i < 6; i++) {
    clock.advance(HOUR);
    const fields: Record<string, string> = {
      title: `Picture ${i}`,
      description: i % 2 ? `About picture ${i}.` : '',
      tags: `rt_scenery,rt_painter,rt_n${i}${i < 3 ? ',rt_heroine' : ''}`,
      contentRating: ratings[i % 3],
      ...(i % 2 ? { source: `https://example.com/art/${i}` } : {}),
      ...(i === 4 ? { parentId: ids[1] } : {}),
    };
    ids.push(await upload(h, await fx.png(300 + i, 96, 64), `p${i}.png`, fields));
  }
  clock.advance(HOUR);
  // Uploads strip EXIF: the stored bytes are not the uploaded ones (nor their md5).
  ids.push(await upload(h, await fx.jpegWithExifAndGps(310), 'photo.jpg', { tags: 'rt_photo,rt_painter', title: 'A photo', contentRating: 'safe' }));
  await call('PATCH', '/api/tags/rt_painter', h, { category: 'artist', description: 'Paints landscapes.' });
  await call('PATCH', '/api/tags/rt_heroine', h, { category: 'character' });
  await call('POST', '/api/tag-aliases', h, { from: 'rt_landscape', to: 'rt_scenery' });
  await call('POST', '/api/tag-implications', h, { from: 'rt_heroine', to: 'rt_scenery' });
  await call('POST', '/api/pools', h, { name: 'rt series', description: 'In reading order.', isPublic: true, postIds: [ids[3], ids[0], ids[5]] });
  await call('POST', '/api/comments', h, { postId: ids[2], content: 'Lovely colours.' });
  await call('POST', '/api/comments', h, { postId: ids[2], content: 'Agreed.' });
  a.view = await boardView(a.app.deps.db, a.app.deps.media);
  a.exif = [...a.view.values()].find((p) => p.title === 'A photo')!.sha256;
  // What the comparisons below would miss if board A lacked it.
  const posts = [...a.view.values()];
  assert.deepEqual(posts.flatMap((p) => p.pools).sort(), ['rt series #1', 'rt series #2', 'rt series #3']);
  assert.equal(posts.filter((p) => p.parent !== null).length, 1);
  assert.deepEqual(posts.flatMap((p) => p.comments).sort(), ['Agreed.', 'Lovely colours.']);
  assert.ok(posts[0].tags.includes('rt_painter:artist') && posts[0].tags.includes('rt_heroine:character'), posts[0].tags.join(' '));
  assert.equal(new Set(posts.map((p) => p.createdAt)).size, 7);

  a.exportDir = path.join(a.dir, 'export');
  const sink = { write: () => true };
  const code = await exportCommand([a.exportDir], { env: { DATA_DIR: a.dir, DATABASE_URL: '' }, out: sink, err: sink });
  assert.equal(code, 0, 'board A exported');
}

after(async () => {
  await a.app?.close();
  fs.rmSync(a.dir, { recursive: true, force: true });
});

async function relations(db: Ctx['database']) {
  const aliases = await db.selectFrom('tag_aliases').innerJoin('tags', 'tags.id', 'tag_aliases.tag_id').select(['from_name', 'name']).execute();
  const implications = await db
    .selectFrom('tag_implications')
    .innerJoin('tags as f', 'f.id', 'tag_implications.from_id')
    .innerJoin('tags as t', 't.id', 'tag_implications.to_id')
    .select(['f.name as from', 't.name as to'])
    .execute();
  const described = await db.selectFrom('tags').select(['name', 'description']).where('description', '!=', '').execute();
  return {
    aliases: aliases.map((r) => `${r.from_name} -> ${r.name}`).sort(),
    implications: implications.map((r) => `${r.from} -> ${r.to}`).sort(),
    described: described.map((r) => `${r.name}: ${r.description}`).sort(),
  };
}

/** A's posts as B must hold them: owned by the importing account, the rest unchanged. */
const expected = (keep: (p: PostView) => Partial<PostView> = () => ({})) =>
  new Map([...a.view].map(([sha, p]) => [sha, { ...p, uploader: 'import', ...keep(p) }]));

eachDatabase('import: an export of board A into board B', (ctx) => {
  before(boardA);
  test('every post with its bytes, tags and kinds, rating, source, title, date, parent, pool place and comments; the tags, aliases and implications', async () => {
    const r = await importRun(ctx, ['folder', a.exportDir, '--report', path.join(ctx.dataDir, 'r.jsonl')]);
    assert.equal(r.code, 0, r.out + r.err);
    assert.deepEqual(summaryCounts(r.out), { imported: 7, matched: 0, skipped: 0, failed: 0, unreadable: 0, read: 7 });
    assert.deepEqual(await boardView(ctx.database, ctx.app.deps.media), expected());
    assert.deepEqual(await relations(ctx.database), await relations(a.app.deps.db));

    const again = await importRun(ctx, ['folder', a.exportDir, '--report', path.join(ctx.dataDir, 'r2.jsonl')]);
    assert.deepEqual(summaryCounts(again.out), { imported: 0, matched: 0, skipped: 7, failed: 0, unreadable: 0, read: 7 });
    assert.deepEqual(await boardView(ctx.database, ctx.app.deps.media), expected());
  });
});

eachDatabase('import: board A through its Danbooru API into board B', (ctx) => {
  before(boardA);
  test("the md5 check refuses bytes that are not the post's; a board that strips metadata serves such bytes, and --no-md5-check takes them", async () => {
    const report = path.join(ctx.dataDir, 'd.jsonl');
    const r = await importRun(ctx, ['danbooru', a.root, '--report', report]);
    assert.equal(r.code, 1, r.out + r.err);
    assert.deepEqual(summaryCounts(r.out), { imported: 6, matched: 0, skipped: 0, failed: 0, unreadable: 1, read: 7 });
    const refused = reportLines(fs.readFileSync(report, 'utf8')).filter((l) => l.status === 'unreadable');
    assert.equal(refused.length, 1);
    assert.match(refused[0].reason, /the file's MD5 is [0-9a-f]{32}, the post says [0-9a-f]{32}.*--no-md5-check/);

    const rest = await importRun(ctx, ['danbooru', a.root, '--no-md5-check', '--report', report]);
    assert.equal(rest.code, 0, rest.out + rest.err);
    assert.deepEqual(summaryCounts(rest.out), { imported: 1, matched: 0, skipped: 6, failed: 0, unreadable: 0, read: 7 });
  });

  test('post by post: tags and kinds, rating, source, date, parent, pool place and comments; aliases and implications', async () => {
    const origin = new URL(a.root).host;
    const b = await boardView(ctx.database, ctx.app.deps.media);
    const untitled = (view: Map<string, PostView>) => new Map([...view].map(([sha, p]) => [sha, { ...p, title: '', description: '' }]));
    assert.deepEqual(untitled(b), untitled(expected()));
    // Danbooru's posts have no title or description: each is named after where it came from.
    const records = await ctx.database
      .selectFrom('import_records')
      .innerJoin('posts', 'posts.id', 'import_records.local_id')
      .select(['origin', 'origin_id', 'title', 'description'])
      .where('kind', '=', 'post')
      .execute();
    assert.equal(records.length, 7);
    for (const r of records) assert.deepEqual([r.origin, r.title, r.description], [origin, `${origin} #${r.origin_id}`, '']);
    const [ra, rb] = [await relations(a.app.deps.db), await relations(ctx.database)];
    assert.deepEqual(rb.aliases, ra.aliases);
    assert.deepEqual(rb.implications, ra.implications);
    assert.deepEqual(rb.described, ra.described, 'wiki pages carry tag descriptions');
  });
});
