import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eachDatabase, listPage } from '../../../test/helpers.ts';
import { createPost, createUser } from '../../../test/factories.ts';
import { itemsJson } from './posts.repo.ts';
import { listRows } from './posts.query.ts';

const HOUR = 3_600_000;

eachDatabase('two tags through a big one: pages from the counting sample', (ctx) => {
  before(async () => {
    const u = await createUser(ctx.database.db, { username: 'sampler' });
    const start = Date.parse('2026-01-01T00:00:00Z');
    // 'even' (600 posts, the rarer: it drives) and 'most' (800); 400 posts have both.
    for (let i = 0; i < 1200; i++) {
      const tags = [...(i % 2 === 0 ? ['even'] : []), ...(i % 3 !== 0 ? ['most'] : [])];
      await createPost(ctx.database.db, { uploaderId: u, title: `p${i}`, tags, createdAt: start + i * HOUR });
    }
  });

  test('every page equals the general query, within the sample and past it; the total is a flagged estimate', async () => {
    const tags = await ctx.database.db.selectFrom('tags').select(['id', 'name', 'post_count as count']).where('name', 'in', ['even', 'most']).execute();
    for (const [offset, limit] of [[0, 24], [24, 24], [300, 10], [320, 24], [350, 24], [390, 20]]) {
      const page = await listPage(ctx.app.deps, { tag: ['even', 'most'], offset, limit });
      const general = JSON.parse(itemsJson(await listRows(ctx.database.db, ctx.database.dialect, { tags, terms: [] }, 'newest', offset, limit)));
      assert.deepEqual(page.posts, general, `offset ${offset}`);
      assert.equal(page.totalIsEstimate, true);
      assert.ok(Math.abs(page.totalPosts - 400) <= 40, `estimate ${page.totalPosts}`);
    }
  });

  test('one big tag alone keeps its exact stored count', async () => {
    const page = await listPage(ctx.app.deps, { tag: ['most'], limit: 5 });
    assert.deepEqual([page.totalPosts, page.totalIsEstimate], [800, false]);
  });
});
