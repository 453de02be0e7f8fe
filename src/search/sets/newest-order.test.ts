import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { capturingQueries, eachDatabase, listPage, postsService } from '../../../test/helpers.ts';
import { createPost, createUser, postRow } from '../../../test/factories.ts';
import { insertPending, publishPending } from '../../modules/approval/approval.repo.ts';
import { NewestOrder } from './newest-order.ts';
import { deletePostRows } from '../../modules/posts/posts.delete.ts';

const HOUR = 3_600_000;

eachDatabase('deep offsets through the in-memory newest order', (ctx) => {
  let u: number;
  before(async () => {
    u = await createUser(ctx.database, { username: 'deep' });
    for (let i = 0; i < 40; i++) {
      // Dates out of id order on purpose: the order is by date, then id.
      await createPost(ctx.database, { uploaderId: u, title: `p${i}`, createdAt: ctx.clock.now() - ((i * 7) % 40) * HOUR });
    }
  });

  /** The order's newest-first pages (and a list through a service of its own) against SQL's offset pages. */
  const same = async (order: NewestOrder, what: string) => {
    await order.refresh(ctx.database);
    const service = postsService(ctx.app.deps);
    for (const [offset, limit] of [
      [3, 5],
      [10, 7],
      [35, 10],
      [39, 3],
      [40, 5],
      [100, 5],
    ]) {
      const walked: number[] = [];
      order.eachByDate('desc', (id) => walked.push(id) < offset + limit);
      const viaSql = await listPage(postsService(ctx.app.deps, 'sql'), { offset, limit });
      assert.deepEqual(
        walked.slice(offset),
        viaSql.posts.map((p) => Number(p.id)),
        `${what}: offset ${offset}`,
      );
      assert.deepEqual(await listPage(service, { offset, limit }), viaSql, `${what}: offset ${offset}, listed`);
    }
  };

  test('every page equals the SQL offset page, through uploads, old-dated posts and deletes', async () => {
    const order = new NewestOrder();
    await same(order, 'first load');
    await createPost(ctx.database, { uploaderId: u, title: 'fresh', createdAt: ctx.clock.now() + HOUR });
    await same(order, 'after a new post (prepended)');
    await createPost(ctx.database, { uploaderId: u, title: 'backdated', createdAt: ctx.clock.now() - 100 * HOUR });
    await same(order, 'after a back-dated post (reloaded)');
    const victim = (await listPage(postsService(ctx.app.deps), { offset: 12, limit: 1 })).posts[0].id;
    await deletePostRows(ctx.database, Number(victim));
    await same(order, 'after a delete');
  });

  test('deletes, with uploads among them, are taken out in memory: every post is not read again', async () => {
    const order = new NewestOrder();
    await order.refresh(ctx.database);
    const ids = (await listPage(postsService(ctx.app.deps), { limit: 30 })).posts.map((p) => Number(p.id));
    await deletePostRows(ctx.database, ids[0]);
    await deletePostRows(ctx.database, ids[7]);
    await createPost(ctx.database, { uploaderId: u, title: 'after the deletes', createdAt: ctx.clock.now() + 2 * HOUR });
    await deletePostRows(ctx.database, ids[20]);
    const { spy, seen } = capturingQueries(ctx.database);
    await order.refresh(spy);
    assert.deepEqual(
      seen.filter((q) => /\blimit\b/i.test(q.sql)).map((q) => q.sql),
      [],
    );
    await same(order, 'after deletes and an upload, caught up in memory');
  });
  test('requests catching up at the same time take the new posts alone, once, without reading every post again', async () => {
    const order = new NewestOrder();
    await order.refresh(ctx.database);
    for (let i = 0; i < 3; i++) await createPost(ctx.database, { uploaderId: u, title: `together ${i}`, createdAt: ctx.clock.now() + (10 + i) * HOUR });
    // Every answer a little late, as under load: each request reads the new state before any has caught up.
    const { spy, seen } = capturingQueries(ctx.database);
    const slow = spy.withPlugin({
      transformQuery: (args) => args.node,
      transformResult: async (args) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        return args.result;
      },
    });
    await Promise.all([order.refresh(slow), order.refresh(slow), order.refresh(slow)]);
    // Each catches up with the new posts alone: none reads every post again (a second at a million posts).
    assert.deepEqual(
      seen.filter((q) => /\blimit\b/i.test(q.sql)).map((q) => q.sql),
      [],
    );
    const total = (await listPage(postsService(ctx.app.deps, 'sql'), { limit: 1 })).totalPosts;
    assert.equal(order.size, total);
    await same(order, 'after concurrent catch-ups');
  });

  test('requests arriving while the first read of every post runs wait for it: every post is read once', async () => {
    // The whole read is in pages of 20,000, a LIMIT each: as many as one refresh alone takes.
    const pages = async (refreshes: number) => {
      const order = new NewestOrder();
      const { spy, seen } = capturingQueries(ctx.database);
      await Promise.all(Array.from({ length: refreshes }, () => order.refresh(spy)));
      return { order, pages: seen.filter((q) => /\blimit\b/i.test(q.sql)).length };
    };
    const alone = await pages(1);
    const together = await pages(3);
    assert.equal(together.pages, alone.pages);
    await same(together.order, 'after concurrent first reads');
  });

  test('a date range alone is counted exactly from the order, as SQL counts it', async () => {
    const service = postsService(ctx.app.deps);
    const sql = postsService(ctx.app.deps, 'sql');
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    const at = (h: number) => new Date(ctx.clock.now() - h * HOUR).toISOString().replace('.000', '');
    const ranges = [
      { dateFrom: day(ctx.clock.now() - 24 * HOUR), dateTo: day(ctx.clock.now()) },
      { dateFrom: at(30), dateTo: at(10) },
      { dateFrom: at(7) },
      { dateTo: at(21) },
      { dateFrom: at(5), dateTo: at(6) },
    ];
    const check = async (what: string) => {
      for (const r of ranges) {
        const viaOrder = await listPage(service, r);
        const viaSql = await listPage(sql, r);
        assert.equal(viaOrder.totalIsEstimate, false);
        assert.equal(viaOrder.totalPosts, viaSql.totalPosts, `${what}: ${JSON.stringify(r)}`);
        assert.deepEqual(viaOrder.posts, viaSql.posts);
      }
    };
    await check('read at once');
    // Newer posts (one in the same millisecond as another) are added to the kept dates, not read again.
    const start = await listPage(service, { dateFrom: at(7) });
    ranges.push({ dateFrom: new Date(ctx.clock.now() + 1_000).toISOString() }, { dateTo: new Date(ctx.clock.now() + 2_000).toISOString() });
    for (const ms of [1_000, 1_000, 1_500, 90_000]) await createPost(ctx.database, { uploaderId: u, title: `new${ms}`, createdAt: ctx.clock.now() + ms });
    await check('after uploads');
    assert.equal((await listPage(service, { dateFrom: at(7) })).totalPosts, start.totalPosts + 4);
    assert.ok(new Set(await Promise.all(ranges.map(async (r) => (await listPage(service, r)).totalPosts))).size >= 4, 'the ranges differ');
  });

  test('a post published from the approval queue, below the newest id, with a delete at the same moment (same count, same highest id): put in its place by date, every post not read again', async () => {
    const order = new NewestOrder();
    const mod = { id: u, username: 'deep', role: 'moderator' as const };
    const heldRow = { ...postRow({ uploaderId: u, title: 'held', createdAt: ctx.clock.now() - 13.5 * HOUR }) };
    const held = await insertPending(ctx.database, heldRow, { tags: [], categories: new Map() });
    await createPost(ctx.database, { uploaderId: u, title: 'above the held one', createdAt: ctx.clock.now() + 3 * HOUR });
    await order.refresh(ctx.database);
    const ids = (await listPage(postsService(ctx.app.deps), { limit: 30 })).posts.map((p) => Number(p.id));
    const top = Math.max(...ids);
    assert.ok(held < top, 'the held post is below the highest id');
    assert.notEqual(ids[5], top, 'the delete leaves the highest id as it is');
    await deletePostRows(ctx.database, ids[5]);
    const entry = { action: 'post.approve' as const, target: `post:${held}`, details: {} };
    assert.equal(await publishPending(ctx.database, held, ctx.clock.now(), { by: mod, at: ctx.clock.now(), entry }), true);
    const { spy, seen } = capturingQueries(ctx.database);
    await order.refresh(spy);
    assert.deepEqual(
      seen.filter((q) => /\blimit\b/i.test(q.sql)).map((q) => q.sql),
      [],
    );
    await same(order, 'after a publication below the newest id and a delete');
    const walked: number[] = [];
    order.eachByDate('desc', (id) => walked.push(id) > 0);
    assert.ok(walked.includes(held));
  });
});

eachDatabase('newest order: refreshAt skips the state read while the data version holds', (ctx) => {
  test('the same version reads nothing; a newer one catches up', async () => {
    const db = ctx.database;
    const u = await createUser(db, { username: 'versioned' });
    const version = async () => Number((await db.selectFrom('counters').select('value').where('name', '=', 'version').executeTakeFirstOrThrow()).value);
    await createPost(db, { uploaderId: u, title: 'v1', createdAt: ctx.clock.now() });
    const order = new NewestOrder();
    const seen = await version();
    await order.refreshAt(db, seen);
    const before = order.size;
    await createPost(db, { uploaderId: u, title: 'v2', createdAt: ctx.clock.now() + 1 });
    // Told the version it already saw, the order does not look (the upload moved the version, so no request would say that).
    await order.refreshAt(db, seen);
    assert.equal(order.size, before);
    await order.refreshAt(db, await version());
    assert.equal(order.size, before + 1);
  });
});
