import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { eachDatabase, getJson, type Ctx } from '../../../test/helpers.ts';
import { addComment, createPost, createUser } from '../../../test/factories.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const PACKAGE_VERSION = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../../package.json'), 'utf8')).version;

/** Every time is an age at the clock's start; some sit just inside or outside 24 h. */
const USERS = [
  { name: 'recent', lastSeenAgo: HOUR },
  { name: 'edge', lastSeenAgo: 23 * HOUR + 30 * MINUTE },
  { name: 'stale', lastSeenAgo: 25 * HOUR },
  { name: 'never', lastSeenAgo: null },
];
const POSTS = [
  { by: 0, ago: HOUR, type: 'image', size: 1_000, tags: ['sky', 'sunset'] },
  { by: 1, ago: 23 * HOUR + 59 * MINUTE, type: 'image', size: 2_500, tags: ['sky'] },
  { by: 1, ago: 25 * HOUR, type: 'video', size: 40_000, tags: ['clip'] },
  { by: 2, ago: 10 * DAY, type: 'image', size: 123, tags: [] },
] as const;
const COMMENTS = [
  { on: 0, by: 1, ago: 2 * HOUR },
  { on: 0, by: 2, ago: 20 * HOUR },
  { on: 2, by: 0, ago: 30 * HOUR },
];

eachDatabase('statistics', (ctx: Ctx) => {
  before(async () => {
    const db = ctx.database;
    const now = ctx.clock.now();
    const users: number[] = [];
    for (const u of USERS) {
      users.push(await createUser(db, { username: u.name, lastSeenAt: u.lastSeenAgo === null ? null : now - u.lastSeenAgo }));
    }
    const posts: number[] = [];
    for (const p of POSTS) {
      posts.push(await createPost(db, { uploaderId: users[p.by], createdAt: now - p.ago, mediaType: p.type, fileSize: p.size, tags: [...p.tags] }));
    }
    for (const c of COMMENTS) await addComment(db, { postId: posts[c.on], userId: users[c.by], createdAt: now - c.ago });
    // A tag whose last post is gone: it exists but is on no post, so it is not counted.
    await db
      .insertInto('tags')
      .values({ name: 'orphan', post_count: 0, created_at: now - DAY })
      .execute();
  });

  /** The public numbers as they should be when the clock has moved `later` ms past its start. */
  const expected = (later = 0) => {
    const within = (ago: number | null) => ago !== null && ago + later <= DAY;
    return {
      activeUsers24h: USERS.filter((u) => within(u.lastSeenAgo)).length,
      newPosts24h: POSTS.filter((p) => within(p.ago)).length,
      newComments24h: COMMENTS.filter((c) => within(c.ago)).length,
      totalPosts: POSTS.length,
      totalComments: COMMENTS.length,
      totalUsers: USERS.length,
      totalTags: new Set(POSTS.flatMap((p) => p.tags)).size,
      serverStatus: 'healthy',
      version: PACKAGE_VERSION,
    };
  };

  test('GET /api/public/status: all seven numbers, healthy, and the package version', async () => {
    const res = await getJson(ctx.app, '/api/public/status');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, expected());
    assert.deepEqual(
      [res.body.activeUsers24h, res.body.newPosts24h, res.body.newComments24h, res.body.totalTags],
      [2, 2, 2, 3],
      'fixture check: the 24 h windows cut through the data',
    );
  });

  test('GET /api/stats: the public numbers plus storage and uptime', async () => {
    const res = await getJson(ctx.app, '/api/stats');
    assert.equal(res.status, 200);
    const { storage, uptimeSeconds, ...rest } = res.body;
    assert.deepEqual(rest, expected());
    assert.deepEqual(storage, {
      mediaBytes: POSTS.reduce((sum, p) => sum + p.size, 0),
      files: { image: POSTS.filter((p) => p.type === 'image').length, video: POSTS.filter((p) => p.type === 'video').length },
    });
    assert.equal(uptimeSeconds, 0, 'the clock has not moved since the app started');
  });

  test('as the clock moves, uptime grows and the 24 h windows slide', async () => {
    const later = 45 * MINUTE + 500;
    ctx.clock.advance(later);
    try {
      const stats = await getJson(ctx.app, '/api/stats');
      assert.equal(stats.body.uptimeSeconds, Math.floor(later / 1000));
      const status = await getJson(ctx.app, '/api/public/status');
      assert.deepEqual(status.body, expected(later));
      assert.equal(status.body.activeUsers24h, expected().activeUsers24h - 1, "'edge' dropped out of the last 24 h");
      assert.equal(status.body.newPosts24h, expected().newPosts24h - 1);
    } finally {
      ctx.clock.advance(-later);
    }
  });

  test('the statistics are read-only: POST is 405 with Allow: GET', async () => {
    for (const url of ['/api/public/status', '/api/stats']) {
      const res = await ctx.app.inject({ method: 'POST', url });
      assert.equal(res.statusCode, 405, url);
      assert.match(String(res.headers.allow), /\bGET\b/);
      assert.equal(res.json().status, 405);
    }
  });
});
