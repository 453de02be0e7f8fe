import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { capturingQueries, eachDatabase, listPage } from '../../../test/helpers.ts';
import { createPost, createUser } from '../../../test/factories.ts';
import { listRows, tagWindow } from './posts.query.ts';

const HOUR = 3_600_000;

eachDatabase('two tags through a big one: pages from the counting sample', (ctx) => {
  before(async () => {
    const u = await createUser(ctx.database, { username: 'sampler' });
    const start = Date.parse('2026-01-01T00:00:00Z');
    // 'even' (600 posts, the rarer: it drives) and 'most' (800); 400 posts have both.
    for (let i = 0; i < 1200; i++) {
      const tags = [...(i % 2 === 0 ? ['even'] : []), ...(i % 3 !== 0 ? ['most'] : [])];
      await createPost(ctx.database, { uploaderId: u, title: `p${i}`, tags, createdAt: start + i * HOUR });
    }
  });

  test('every page equals the general query, within the sample and past it; the total is a flagged estimate', async () => {
    const both = Array.from({ length: 1200 }, (_, i) => 1199 - i)
      .filter((i) => i % 2 === 0 && i % 3 !== 0)
      .map((i) => `p${i}`);
    const tags = await ctx.database.selectFrom('tags').select(['id', 'name', 'post_count as count']).where('name', 'in', ['even', 'most']).execute();
    for (const [offset, limit] of [
      [0, 24],
      [24, 24],
      [300, 10],
      [320, 24],
      [350, 24],
      [390, 20],
    ]) {
      const page = await listPage(ctx.app.deps, { tag: ['even', 'most'], offset, limit });
      const general = JSON.parse((await listRows(ctx.database, { tags, terms: [] }, 'newest', offset, limit)).json);
      assert.deepEqual(page.posts, general, `offset ${offset}`);
      // Both paths read the links alone: the answer is checked against the fixture itself too.
      assert.deepEqual(
        page.posts.map((p) => p.title),
        both.slice(offset, offset + limit),
        `offset ${offset}: newest posts with both tags`,
      );
      assert.equal(page.totalIsEstimate, true);
      assert.ok(Math.abs(page.totalPosts - 400) <= 40, `estimate ${page.totalPosts}`);
    }
  });

  test("oldest first and past the last match, tags alone give the fixture's posts", async () => {
    const both = Array.from({ length: 1200 }, (_, i) => i)
      .filter((i) => i % 2 === 0 && i % 3 !== 0)
      .map((i) => `p${i}`);
    for (const [offset, limit] of [
      [0, 24],
      [390, 20],
      [400, 5],
    ]) {
      const page = await listPage(ctx.app.deps, { tag: ['most', 'even'], sortBy: 'oldest', offset, limit });
      assert.deepEqual(
        page.posts.map((p) => p.title),
        both.slice(offset, offset + limit),
        `offset ${offset}`,
      );
    }
  });

  // A SQLite plan (registered for the SQLite pass only).
  if (ctx.kind === 'sqlite')
    test("on SQLite, tags alone read links only (the other tags by date and post in their own index): no post row until the page's", async () => {
      const db = ctx.database;
      const { spy, seen, plan } = capturingQueries(db);
      const tags = await db.selectFrom('tags').select(['id', 'name', 'post_count as count']).where('name', 'in', ['even', 'most']).execute();
      await tagWindow(spy, { tags, terms: [] });
      await listRows(spy, { tags, terms: [] }, 'newest', 0, 24);
      const reads = seen.filter((q) => q.sql.includes('EXISTS'));
      assert.equal(reads.length, 2, reads.map((q) => q.sql).join('\n'));
      for (const q of reads) {
        const detail = await plan(q);
        assert.doesNotMatch(detail, /\bposts\b/, detail);
        assert.match(detail, /SEARCH d USING COVERING INDEX post_tags_tag/, detail);
        // The other tag: a seek in its own links by date and post, not a probe of post_tags' key.
        assert.match(detail, /SEARCH t .*post_tags_tag \(tag_id=\? AND created_at=\?\)/, detail);
      }
    });

  test('one big tag alone keeps its exact stored count', async () => {
    const page = await listPage(ctx.app.deps, { tag: ['most'], limit: 5 });
    assert.deepEqual([page.totalPosts, page.totalIsEstimate], [800, false]);
  });
});
