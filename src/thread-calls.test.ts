// What the main thread keeps, called across a message port (WORKERS > 1: the serving threads
// ask): the engine core's pages as the core called directly gives them, the similar-image index's
// neighbours likewise, and errors as the same classes.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { MessageChannel } from 'node:worker_threads';
import { AppError } from './core/errors.ts';
import { addLike, createPost, createUser } from '../test/factories.ts';
import { eachDatabase } from '../test/helpers.ts';
import { createPostsService } from './modules/posts/posts.service.ts';
import { keptNearest, NEAREST_CALLS, type NearestPosts } from './modules/similar/similar.service.ts';
import { createEngineCore, ENGINE_CALLS, type EngineCore, searchEngine } from './search/engine.ts';
import { QueryError } from './search/parse.ts';
import { remoteCalls, serveCalls } from './thread-calls.ts';

const HOUR = 3_600_000;
const START = Date.parse('2026-02-01T00:00:00Z');

eachDatabase('the search engine core across a message port', (ctx) => {
  const channel = new MessageChannel();
  let local: ReturnType<typeof searchEngine>;
  let remote: ReturnType<typeof searchEngine>;

  before(async () => {
    const uploader = await createUser(ctx.database, { username: 'porter' });
    const fan = await createUser(ctx.database, { username: 'portfan' });
    for (let i = 0; i < 40; i++) {
      const id = await createPost(ctx.database, {
        uploaderId: uploader,
        title: `pier ${i % 2 ? 'north' : 'south'}`,
        tags: ['boat', ...(i % 3 ? [] : ['sail']), ...(i % 5 ? [] : ['storm'])],
        rating: i % 4 === 0 ? 'sketchy' : 'safe',
        createdAt: START + i * HOUR,
      });
      if (i % 6 === 0) await addLike(ctx.database, fan, id, START + i * HOUR);
    }
    const core = createEngineCore(ctx.app.deps);
    serveCalls(core, ENGINE_CALLS, channel.port1);
    local = searchEngine(ctx.app.deps, core);
    remote = searchEngine(ctx.app.deps, remoteCalls<EngineCore>(ENGINE_CALLS, channel.port2));
  });
  after(() => channel.port1.close());

  const page = (engine: typeof local, q: string, filters?: { ratings: 'safe'[] | null; blacklist: string[] }) =>
    engine.page({ query: { q, limit: 10, offset: 2, seed: 7 }, filters, render: async (r) => ({ value: { ids: r.ids, total: r.total, hidden: r.hidden } }) });

  test('pages, totals and what filters hide are the same asked over the port as asked directly', async () => {
    for (const q of ['boat', 'sail -storm', 'order:likes', 'pier north', 'rating:safe order:random', 'id:>5 id:<30 order:id'])
      assert.deepEqual(await page(remote, q), await page(local, q), q);
    const filters = { ratings: ['safe' as const], blacklist: ['storm'] };
    const filtered = await page(remote, 'boat', filters);
    assert.deepEqual(filtered, await page(local, 'boat', filters));
    assert.ok(filtered.hidden > 0, 'the filters hid posts');
    assert.equal(remote.newestId(), local.newestId());
    assert.ok(remote.newestId() > 0);
  });

  test("the list's JSON is the same through the port, its cursor for the next page too", async () => {
    const viaPort = createPostsService(ctx.app.deps, { search: remote });
    const here = createPostsService(ctx.app.deps, { search: local });
    for (const q of [{ limit: 7 }, { q: 'boat sail', limit: 5 }, { q: 'order:likes', limit: 5 }, { limit: 5, offset: 30 }])
      assert.equal(await viaPort.list(q), await here.list(q), JSON.stringify(q));
    assert.match(JSON.parse(await viaPort.list({ limit: 7 })).nextCursor, /^\d+$/, 'a full page in newest order leads on');
  });

  test("a post's counts and the kept bytes come over the port", async () => {
    const { ids } = await page(local, 'order:likes');
    assert.deepEqual(await remote.countsOf(ids, local.newestId()), await local.countsOf(ids, local.newestId()));
    assert.ok((await remote.countsOf(ids, local.newestId())).likes[0] > 0);
    assert.deepEqual(Object.keys(await remote.memory()).sort(), Object.keys(await local.memory()).sort());
  });

  test("the similar-image index's neighbours, and a forgotten post, are the same over the port", async () => {
    const ids = (await ctx.database.selectFrom('posts').select('id').orderBy('id').limit(6).execute()).map((r) => r.id);
    // Hashes one bit apart from the first, and the last far from all.
    const hashes = ['00000000000000ff', '00000000000000fe', '00000000000000fc', '00000000000000f8', '00000000000000f0', 'ffffffffffffff00'];
    for (const [i, id] of ids.entries()) await ctx.database.updateTable('posts').set({ phash: hashes[i] }).where('id', '=', id).execute();
    const channel2 = new MessageChannel();
    const kept = keptNearest(ctx.database);
    serveCalls(kept, NEAREST_CALLS, channel2.port1);
    const remote2 = remoteCalls<NearestPosts>(NEAREST_CALLS, channel2.port2);
    try {
      const near = await remote2.nearest(hashes[0], 3, 10, ids[0]);
      assert.deepEqual(near, await keptNearest(ctx.database).nearest(hashes[0], 3, 10, ids[0]));
      assert.deepEqual(
        near.map((n) => n.id),
        [ids[1], ids[2], ids[3]],
        'the three within three bits, nearest first',
      );
      await remote2.forget([ids[1]]);
      assert.deepEqual(
        (await kept.nearest(hashes[0], 3, 10, ids[0])).map((n) => n.id),
        [ids[2], ids[3]],
        'forgotten in the one index the main thread keeps',
      );
    } finally {
      channel2.port1.close();
    }
  });

  test('a query that cannot be read is the same QueryError, with its position, on the asking side', async () => {
    const err = await page(remote, 'boat (sail').catch((e) => e);
    assert.ok(err instanceof QueryError, String(err));
    assert.ok(err instanceof AppError);
    assert.equal(err.status, 400);
    const direct = await page(local, 'boat (sail').catch((e) => e);
    assert.equal(err.message, direct.message);
    assert.deepEqual(err.extra, direct.extra);
  });
});
