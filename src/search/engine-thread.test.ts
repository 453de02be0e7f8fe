// The engine core across a message port (WORKERS > 1: the main thread keeps it, the serving
// threads ask): the same pages as the core called directly, and its errors as the same classes.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { MessageChannel } from 'node:worker_threads';
import { AppError } from '../core/errors.ts';
import { addLike, createPost, createUser } from '../../test/factories.ts';
import { eachDatabase } from '../../test/helpers.ts';
import { createEngineCore, searchEngine } from './engine.ts';
import { remoteCore, serveEngine } from './engine-thread.ts';
import { QueryError } from './parse.ts';

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
    serveEngine(core, channel.port1);
    local = searchEngine(ctx.app.deps, core);
    remote = searchEngine(ctx.app.deps, remoteCore(channel.port2));
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

  test("a post's counts and the kept bytes come over the port", async () => {
    const { ids } = await page(local, 'order:likes');
    assert.deepEqual(await remote.countsOf(ids, local.newestId()), await local.countsOf(ids, local.newestId()));
    assert.ok((await remote.countsOf(ids, local.newestId())).likes[0] > 0);
    assert.deepEqual(Object.keys(await remote.memory()).sort(), Object.keys(await local.memory()).sort());
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
