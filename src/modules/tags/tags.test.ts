import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eachDatabase, getJson, type Ctx } from '../../../test/helpers.ts';
import { createPost, createUser } from '../../../test/factories.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const WINDOW = { day: DAY, week: 7 * DAY, month: 30 * DAY, year: 365 * DAY } as const;

interface PostSpec {
  ago: number;
  by: 'alice' | 'bob';
  tags: string[];
}

/**
 * Oldest first, so each tag is created with its first post; no post introduces two new tags, so
 * "newest tag" has no ties. Times straddle every window: today vs. the last 24 h, week, month, year.
 */
const POSTS: PostSpec[] = [
  { ago: 400 * DAY, by: 'bob', tags: ['ancient'] },
  { ago: 100 * DAY, by: 'alice', tags: ['mountain'] },
  { ago: 40 * DAY, by: 'alice', tags: ['mountain', 'river'] },
  { ago: 20 * DAY, by: 'bob', tags: ['mountain', 'undersea'] },
  { ago: 10 * DAY, by: 'bob', tags: ['mountain', 'boat', 'undersea'] },
  { ago: 6 * DAY, by: 'alice', tags: ['sea', 'undersea'] },
  { ago: 3 * DAY, by: 'bob', tags: ['sea', 'boat', 'undersea'] },
  { ago: 13 * HOUR, by: 'alice', tags: ['sky', 'sea'] }, // yesterday (UTC), but within 24 h
  { ago: 11 * HOUR, by: 'bob', tags: ['sky', 'seagull'] },
  { ago: HOUR, by: 'alice', tags: ['sky', 'sunset'] },
  { ago: HOUR / 2, by: 'bob', tags: ['blue_sky', 'sky'] },
];

eachDatabase('GET /api/tags', (ctx: Ctx) => {
  let now = 0;
  const tagIds = new Map<string, string>();

  before(async () => {
    const db = ctx.database;
    now = ctx.clock.now();
    const users = { alice: await createUser(db, { username: 'alice' }), bob: await createUser(db, { username: 'bob' }) };
    for (const p of POSTS) await createPost(db, { uploaderId: users[p.by], tags: p.tags, createdAt: now - p.ago });
    for (const t of await db.selectFrom('tags').select(['id', 'name']).execute()) tagIds.set(t.name, String(t.id));
  });

  /** What each tag should show, from POSTS alone. */
  function model(opts: { maxAgo?: number; by?: string } = {}) {
    const todayAgo = now - Math.floor(now / DAY) * DAY;
    const counts = new Map<string, { postsCount: number; newPostsToday: number; newPostsThisWeek: number; firstAgo: number }>();
    for (const p of POSTS) {
      if (opts.by && p.by !== opts.by) continue;
      for (const t of p.tags) {
        const c = counts.get(t) ?? { postsCount: 0, newPostsToday: 0, newPostsThisWeek: 0, firstAgo: p.ago };
        if (opts.maxAgo === undefined || p.ago <= opts.maxAgo) c.postsCount++;
        if (p.ago <= todayAgo) c.newPostsToday++;
        if (p.ago <= WINDOW.week) c.newPostsThisWeek++;
        counts.set(t, c);
      }
    }
    return new Map([...counts].filter(([, c]) => c.postsCount > 0));
  }
  const view = (m: ReturnType<typeof model>) =>
    Object.fromEntries([...m].map(([name, c]) => [name, { postsCount: c.postsCount, newPostsToday: c.newPostsToday, newPostsThisWeek: c.newPostsThisWeek }]));
  const shown = (tags: any[]) =>
    Object.fromEntries(tags.map((t) => [t.name, { postsCount: t.postsCount, newPostsToday: t.newPostsToday, newPostsThisWeek: t.newPostsThisWeek }]));

  async function list(query: string) {
    const res = await getJson(ctx.app, `/api/tags${query}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body as { tags: any[]; pagination: { total: number; page: number; perPage: number; totalPages: number } };
  }
  const names = async (query: string) => (await list(query)).tags.map((t) => t.name);
  const nonIncreasing = (xs: number[]) =>
    assert.deepEqual(
      xs,
      [...xs].sort((a, b) => b - a),
    );

  test('default: every used tag with its counts, most used first, 50 per page', async () => {
    const body = await list('');
    const m = model();
    assert.deepEqual(shown(body.tags), view(m));
    assert.equal(body.tags.length, m.size);
    assert.equal(body.tags[0].name, 'mountain', 'the only tag on five posts');
    nonIncreasing(body.tags.map((t) => t.postsCount));
    assert.deepEqual(body.pagination, { total: m.size, page: 1, perPage: 50, totalPages: 1 });
  });

  test('newPostsToday counts since 00:00 UTC; newPostsThisWeek the last 7 days', async () => {
    const sky = (await list('?search=sky')).tags.find((t) => t.name === 'sky');
    assert.deepEqual([sky.postsCount, sky.newPostsToday, sky.newPostsThisWeek], [4, 3, 4], 'one sky post is from 23:00 yesterday');
    const sea = (await list('?search=sea')).tags.find((t) => t.name === 'sea');
    assert.deepEqual([sea.newPostsToday, sea.newPostsThisWeek], [0, 3]);
  });

  test('_id is the tag id as a string', async () => {
    for (const t of (await list('?limit=200')).tags) {
      assert.equal(typeof t._id, 'string');
      assert.equal(t._id, tagIds.get(t.name));
    }
  });

  test('sortBy newest: the most recently created tag first', async () => {
    const m = model();
    const want = [...m].sort((a, b) => a[1].firstAgo - b[1].firstAgo).map(([n]) => n);
    assert.deepEqual(await names('?sortBy=newest'), want);
    assert.equal(want[0], 'blue_sky');
  });

  test('sortBy alphabetical', async () => {
    assert.deepEqual(await names('?sortBy=alphabetical'), [...model().keys()].sort());
  });

  test('sortBy trending: most posts added in the last 7 days first', async () => {
    const body = await list('?sortBy=trending');
    const week = body.tags.map((t) => t.newPostsThisWeek);
    nonIncreasing(week);
    assert.equal(body.tags[0].name, 'sky', 'four sky posts this week, more than any other tag');
    const pos = (n: string) => body.tags.findIndex((t) => t.name === n);
    assert.ok(pos('boat') < pos('mountain'), 'a tag used this week outranks a bigger tag idle this week');
    assert.deepEqual(shown(body.tags), view(model()));
  });

  test('search: case-insensitive substring, prefix matches first', async () => {
    const m = model();
    const want = (q: string) => {
      const hits = [...m].filter(([n]) => n.includes(q));
      const rank = ([n, c]: [string, { postsCount: number }]) => [n.startsWith(q) ? 0 : 1, -c.postsCount] as const;
      return hits.sort((a, b) => rank(a)[0] - rank(b)[0] || rank(a)[1] - rank(b)[1] || a[0].localeCompare(b[0])).map(([n]) => n);
    };
    assert.deepEqual(want('sea'), ['sea', 'seagull', 'undersea'], 'undersea has more posts but is not a prefix match');
    for (const q of ['sea', 'SEA', 'Sky', 'a', 'zzz']) {
      const body = await list(`?search=${q}`);
      assert.deepEqual(
        body.tags.map((t) => t.name),
        want(q.toLowerCase()),
        `search=${q}`,
      );
      assert.equal(body.pagination.total, want(q.toLowerCase()).length);
    }
    assert.deepEqual(await names('?search=_'), ['blue_sky'], '_ is literal');
    assert.deepEqual(await names('?search=%25'), [], '% is literal');
  });

  test('page and limit split the list; the pages together are the whole list', async () => {
    const full = await names('?limit=200');
    const total = model().size;
    const pages: string[] = [];
    for (let page = 1; page <= Math.ceil(total / 4); page++) {
      const body = await list(`?limit=4&page=${page}`);
      assert.deepEqual(body.pagination, { total, page, perPage: 4, totalPages: Math.ceil(total / 4) });
      assert.ok(body.tags.length === 4 || page === Math.ceil(total / 4));
      pages.push(...body.tags.map((t) => t.name));
    }
    assert.deepEqual(pages, full);
    const past = await list('?limit=4&page=99');
    assert.deepEqual(past.tags, []);
    assert.equal(past.pagination.total, total);
  });

  test("author: counts only that uploader's posts, any case; unknown author is empty", async () => {
    for (const [q, by] of [
      ['alice', 'alice'],
      ['ALICE', 'alice'],
      ['bob', 'bob'],
    ]) {
      const body = await list(`?author=${q}`);
      assert.deepEqual(shown(body.tags), view(model({ by })), `author=${q}`);
      assert.equal(body.pagination.total, model({ by }).size);
    }
    const week = await list('?author=alice&timeRange=week');
    assert.deepEqual(shown(week.tags), view(model({ by: 'alice', maxAgo: WINDOW.week })));
    const none = await list('?author=nobody');
    assert.deepEqual(none.tags, []);
    assert.equal(none.pagination.total, 0);
  });

  test('timeRange counts only posts in the window and leaves out tags with none', async () => {
    for (const range of ['day', 'week', 'month', 'year'] as const) {
      const body = await list(`?timeRange=${range}`);
      const m = model({ maxAgo: WINDOW[range] });
      assert.deepEqual(shown(body.tags), view(m), `timeRange=${range}`);
      assert.equal(body.pagination.total, m.size);
      nonIncreasing(body.tags.map((t) => t.postsCount));
    }
    assert.ok(!(await names('?timeRange=year')).includes('ancient'));
    assert.deepEqual(shown((await list('?timeRange=all')).tags), view(model()));
  });

  test('bad values are 400 naming the parameter', async () => {
    const cases: [string, string, string[]][] = [
      ['limit=201', 'limit', []],
      ['limit=0', 'limit', []],
      ['limit=x', 'limit', []],
      ['page=0', 'page', []],
      ['sortBy=popular', 'sortBy', ['most_used', 'newest', 'alphabetical', 'trending']],
      ['timeRange=decade', 'timeRange', ['day', 'week', 'month', 'year', 'all']],
      ['color=red', 'color', []],
    ];
    for (const [q, param, allowed] of cases) {
      const res = await getJson(ctx.app, `/api/tags?${q}`);
      assert.equal(res.status, 400, q);
      assert.equal(res.body.status, 400);
      assert.match(res.body.error, new RegExp(param));
      for (const v of allowed) assert.match(res.body.error, new RegExp(v));
    }
    assert.equal((await list('?limit=200')).pagination.perPage, 200);
  });
});
