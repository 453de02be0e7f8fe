import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { App } from '../../app.ts';
import { anotherInstance, eachDatabase, type Ctx } from '../../../test/helpers.ts';
import { assertError, createKeyOk, register, setAccount, type Account } from '../../../test/auth-helpers.ts';
import { createPost, createUser } from '../../../test/factories.ts';
import { ban } from '../../../test/moderation-helpers.ts';

type Headers = Record<string, string>;
type Item = { id: string; tags: string[]; contentRating: string; likes: number };
type Body = { posts: Item[]; totalPosts: number; totalIsEstimate: boolean; hiddenPosts: number; nextCursor: string | null };

const HOUR = 3_600_000;
const ALL = ['safe', 'sketchy', 'unsafe'];
/** Twelve posts, newest last: tags and ratings in a fixed pattern, so every answer is known. */
const TAGS = [
  ['cat'],
  ['dog'],
  ['cat', 'dog'],
  ['bird'],
  ['cat_ears'],
  ['dog', 'tree'],
  ['bird', 'cat'],
  ['tree'],
  ['dog'],
  ['cat'],
  ['bird'],
  ['tree', 'dog'],
];

async function list(app: App, headers: Headers, params: Record<string, string | number> = {}): Promise<Body> {
  const qs = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]));
  const res = await app.inject({ url: `/api/posts?${qs}`, headers });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

const put = (app: App, headers: Headers, payload: unknown) =>
  app.inject({ method: 'PUT', url: '/api/users/me/preferences', headers, payload: payload as object });
const get = (app: App, headers: Headers) => app.inject({ url: '/api/users/me/preferences', headers });

async function putOk(app: App, headers: Headers, payload: { blacklist: string[]; ratings: string[] }) {
  const res = await put(app, headers, payload);
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(res.json(), payload, 'the answer is what was saved');
}

const ids = (b: Body) => b.posts.map((p) => p.id);

eachDatabase('personal filters: GET|PUT /api/users/me/preferences and GET /api/posts', (ctx: Ctx) => {
  let member: Account;
  let plain: Account;
  let second: App;

  before(async () => {
    member = await register(ctx.app, 'filterer');
    plain = await register(ctx.app, 'plainview');
    const uploader = await createUser(ctx.database, { username: 'uploader' });
    for (const [i, tags] of TAGS.entries()) {
      await createPost(ctx.database, {
        uploaderId: uploader,
        title: `post ${i}`,
        tags,
        rating: (['safe', 'sketchy', 'unsafe'] as const)[i % 3],
        likeCount: (i * 7) % 5,
        createdAt: ctx.clock.now() - (TAGS.length - i) * HOUR,
      });
    }
    second = await anotherInstance(ctx);
  });
  after(() => second?.close());

  /** Every post plainview (no filters) lists for these parameters, in order. */
  const everything = async (params: Record<string, string | number>) => (await list(ctx.app, plain.headers, { ...params, limit: 100, offset: 0 })).posts;

  test('a visitor gets 401 on both methods; a member who saved nothing gets the defaults', async () => {
    assertError(await get(ctx.app, {}), 401);
    assertError(await put(ctx.app, {}, { blacklist: [], ratings: ['safe'] }), 401);
    const res = await get(ctx.app, plain.headers);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { blacklist: [], ratings: ALL });
  });

  test('PUT replaces the whole object and answers it; GET reads it back, on a second app over the same database at once', async () => {
    await putOk(ctx.app, member.headers, { blacklist: ['cat', 'dog rating:unsafe'], ratings: ['sketchy', 'safe'] });
    assert.deepEqual((await get(second, member.headers)).json(), { blacklist: ['cat', 'dog rating:unsafe'], ratings: ['sketchy', 'safe'] });
    // The second app lists with them too, without a restart or a cache to expire.
    const listed = await list(second, member.headers, { limit: 100 });
    assert.ok(listed.posts.length > 0);
    assert.ok(
      listed.posts.every((p) => !p.tags.includes('cat') && p.contentRating !== 'unsafe'),
      JSON.stringify(listed.posts),
    );
    await putOk(second, member.headers, { blacklist: [], ratings: ALL });
    assert.deepEqual((await get(ctx.app, member.headers)).json(), { blacklist: [], ratings: ALL });
    assert.equal((await list(ctx.app, member.headers, { limit: 100 })).totalPosts, TAGS.length, 'cleared on one app: every post again on the other');
  });

  test('a bad body is a 400 naming the entry, the message and its position; nothing is saved', async () => {
    await putOk(ctx.app, member.headers, { blacklist: ['tree'], ratings: ALL });
    const bad = async (payload: unknown, field: string, position?: number) => {
      const res = await put(ctx.app, member.headers, payload);
      assert.equal(res.statusCode, 400, res.body);
      const detail = res.json().details.find((d: { field: string }) => d.field === field);
      assert.ok(detail, `details name ${field}: ${res.body}`);
      if (position !== undefined) assert.equal(detail.position, position, res.body);
      assert.ok(res.json().error.includes(field.replace(/\[.*/, '')), res.json().error);
    };
    await bad({ blacklist: ['cat', 'dog', 'a (b'], ratings: ALL }, 'blacklist[2]', 2);
    await bad({ blacklist: ['cat order:likes'], ratings: ALL }, 'blacklist[0]', 4);
    await bad({ blacklist: ['cat', 'likes:lots'], ratings: ALL }, 'blacklist[1]', 6);
    await bad({ blacklist: ['   '], ratings: ALL }, 'blacklist[0]', 0);
    await bad({ blacklist: ['x'.repeat(1001)], ratings: ALL }, 'blacklist');
    await bad({ blacklist: Array.from({ length: 101 }, (_, i) => `t${i}`), ratings: ALL }, 'blacklist');
    await bad({ blacklist: [], ratings: [] }, 'ratings');
    await bad({ blacklist: [], ratings: ['safe', 'safe'] }, 'ratings');
    await bad({ blacklist: [], ratings: ['explicit'] }, 'ratings');
    await bad({ blacklist: [] }, 'ratings');
    assert.deepEqual((await get(ctx.app, member.headers)).json(), { blacklist: ['tree'], ratings: ALL });
    // The limits are inclusive: 100 entries of 1,000 characters are taken.
    await putOk(ctx.app, member.headers, { blacklist: Array.from({ length: 100 }, (_, i) => `t${i}`.padEnd(1000, 'x')), ratings: ALL });
  });

  test("a banned member's PUT is 403 (the ban check of every write); their GET still answers", async () => {
    const admin = await register(ctx.app, 'rootadmin');
    await setAccount(ctx.database, 'rootadmin', { role: 'admin' });
    const banned = await register(ctx.app, 'bannedone');
    await putOk(ctx.app, banned.headers, { blacklist: ['cat'], ratings: ALL });
    assert.equal((await ban(ctx.app, admin.headers, 'bannedone', { reason: 'spam' })).statusCode, 200);
    const res = await put(ctx.app, banned.headers, { blacklist: [], ratings: ALL });
    assertError(res, 403);
    assert.equal(res.json().ban.reason, 'spam');
    assert.deepEqual((await get(ctx.app, banned.headers)).json(), { blacklist: ['cat'], ratings: ALL });
  });

  test('the blacklist leaves its posts out of lists, q searches, tag= filters and every order; hiddenPosts counts them', async () => {
    await putOk(ctx.app, member.headers, { blacklist: ['cat'], ratings: ALL });
    const cases: Record<string, string | number>[] = [
      {},
      { q: 'dog or bird' },
      { tag: 'dog' },
      { search: 'post' },
      { sortBy: 'oldest' },
      { sortBy: 'most_liked' },
      { sortBy: 'most_commented' },
      { sortBy: 'most_favorited' },
      { q: 'order:id_asc' },
      { q: 'order:likes_asc' },
      { q: 'order:tagcount' },
      { q: 'order:random', seed: 5 },
    ];
    for (const params of cases) {
      const all = await everything(params);
      const kept = all.filter((p) => !p.tags.includes('cat'));
      assert.ok(kept.length < all.length, `the case has cat posts: ${JSON.stringify(params)}`);
      for (const [offset, limit] of [
        [0, 100],
        [0, 2],
        [3, 2],
      ]) {
        const got = await list(ctx.app, member.headers, { ...params, offset, limit });
        const at = JSON.stringify({ ...params, offset, limit });
        assert.deepEqual(ids(got), ids({ posts: kept.slice(offset, offset + limit) } as Body), at);
        assert.equal(got.totalPosts, kept.length, at);
        assert.equal(got.hiddenPosts, all.length - kept.length, at);
        assert.equal(got.totalIsEstimate, false);
      }
    }
  });

  test('before= pages past the cursor among the posts the blacklist leaves, and counts what it hides there', async () => {
    await putOk(ctx.app, member.headers, { blacklist: ['cat'], ratings: ALL });
    const all = await everything({});
    const kept = all.filter((p) => !p.tags.includes('cat'));
    const first = await list(ctx.app, member.headers, { limit: 3 });
    assert.deepEqual(ids(first), ids({ posts: kept.slice(0, 3) } as Body));
    const next = await list(ctx.app, member.headers, { limit: 3, before: first.nextCursor! });
    assert.deepEqual(ids(next), ids({ posts: kept.slice(3, 6) } as Body));
    const rest = all.slice(all.findIndex((p) => p.id === first.nextCursor) + 1);
    assert.equal(next.totalPosts, kept.length - 3);
    assert.equal(next.hiddenPosts, rest.length - (kept.length - 3));
  });

  test('entries are queries: wildcards, metatags, NOT and OR; a tag nobody has hides nothing', async () => {
    const check = async (blacklist: string[], hides: (p: Item) => boolean) => {
      await putOk(ctx.app, member.headers, { blacklist, ratings: ALL });
      const all = await everything({});
      const kept = all.filter((p) => !hides(p));
      const got = await list(ctx.app, member.headers, { limit: 100 });
      assert.deepEqual(ids(got), ids({ posts: kept } as Body), blacklist.join(' | '));
      assert.equal(got.hiddenPosts, all.length - kept.length, blacklist.join(' | '));
    };
    await check(['cat*'], (p) => p.tags.some((t) => t.startsWith('cat')));
    await check(
      ['dog rating:unsafe', 'bird -cat'],
      (p) => (p.tags.includes('dog') && p.contentRating === 'unsafe') || (p.tags.includes('bird') && !p.tags.includes('cat')),
    );
    await check(['likes:>=3 or tree'], (p) => p.likes >= 3 || p.tags.includes('tree'));
    await check(['no_such_tag'], () => false);
  });

  test('ratings shown: only those are listed; a rating named by the request wins (the blacklist still applies)', async () => {
    await putOk(ctx.app, member.headers, { blacklist: [], ratings: ['safe', 'unsafe'] });
    const all = await everything({});
    const shown = await list(ctx.app, member.headers, { limit: 100 });
    assert.deepEqual(ids(shown), ids({ posts: all.filter((p) => p.contentRating !== 'sketchy') } as Body));
    assert.equal(shown.hiddenPosts, all.filter((p) => p.contentRating === 'sketchy').length);
    const named: Record<string, string>[] = [{ contentRating: 'sketchy' }, { q: 'rating:sketchy' }, { q: 'tree -rating:safe' }];
    for (const params of named) {
      const want = await everything(params);
      assert.ok(
        want.some((p) => p.contentRating === 'sketchy'),
        JSON.stringify(params),
      );
      const got = await list(ctx.app, member.headers, { ...params, limit: 100 });
      assert.deepEqual(ids(got), ids({ posts: want } as Body), JSON.stringify(params));
      assert.equal(got.hiddenPosts, 0);
    }
    await putOk(ctx.app, member.headers, { blacklist: ['tree'], ratings: ['safe'] });
    const want = (await everything({ contentRating: 'sketchy' })).filter((p) => !p.tags.includes('tree'));
    const got = await list(ctx.app, member.headers, { contentRating: 'sketchy', limit: 100 });
    assert.deepEqual(ids(got), ids({ posts: want } as Body));
    assert.equal(got.hiddenPosts, 1, 'the sketchy tree post');
  });

  test('with an API key, the key owner’s filters apply', async () => {
    await setAccount(ctx.database, 'filterer', { tier: 'basic' });
    const { key } = await createKeyOk(ctx.app, member.headers, 'lists');
    await putOk(ctx.app, member.headers, { blacklist: ['dog'], ratings: ALL });
    const got = await list(ctx.app, { 'x-api-key': key }, { limit: 100 });
    assert.ok(got.posts.every((p) => !p.tags.includes('dog')));
    assert.equal(got.hiddenPosts, TAGS.filter((t) => t.includes('dog')).length);
  });

  test('visitors see the safe posts only by default, with hiddenPosts; a rating they name is listed', async () => {
    const all = await everything({});
    const visitor = await list(ctx.app, {}, { limit: 100 });
    assert.deepEqual(ids(visitor), ids({ posts: all.filter((p) => p.contentRating === 'safe') } as Body));
    assert.equal(visitor.totalPosts, 4);
    assert.equal(visitor.hiddenPosts, 8);
    const unsafe = await list(ctx.app, {}, { contentRating: 'unsafe', limit: 100 });
    assert.equal(unsafe.totalPosts, 4);
    assert.ok(unsafe.posts.every((p) => p.contentRating === 'unsafe'));
    assert.equal(unsafe.hiddenPosts, 0);
    assert.equal((await list(ctx.app, {}, { q: 'rating:sketchy,unsafe', limit: 100 })).totalPosts, 8);
  });

  test('VISITOR_RATINGS sets what visitors see; all three hides nothing', async () => {
    const two = await anotherInstance(ctx, { visitorRatings: ['safe', 'sketchy'] });
    const every = await anotherInstance(ctx, { visitorRatings: ['safe', 'sketchy', 'unsafe'] });
    try {
      const shown = await list(two, {}, { limit: 100 });
      assert.ok(shown.posts.every((p) => p.contentRating !== 'unsafe'));
      assert.deepEqual([shown.totalPosts, shown.hiddenPosts], [8, 4]);
      const all = await list(every, {}, { limit: 100 });
      assert.deepEqual([all.totalPosts, all.hiddenPosts], [TAGS.length, 0]);
    } finally {
      await two.close();
      await every.close();
    }
  });

  test("a post's neighbours are those of the list as the viewer sees it: the blacklist's posts are stepped over", async () => {
    await putOk(ctx.app, member.headers, { blacklist: ['cat'], ratings: ALL });
    const kept = (await list(ctx.app, member.headers, { limit: 100 })).posts.map((p) => p.id);
    const res = await ctx.app.inject({ url: `/api/posts/${kept[2]}?neighbours=2&at=2`, headers: member.headers });
    assert.equal(res.statusCode, 200, res.body);
    const { before: newer, after: older } = res.json().neighbours;
    assert.deepEqual(
      newer.map((p: Item) => p.id),
      [kept[1], kept[0]],
    );
    assert.deepEqual(
      older.map((p: Item) => p.id),
      [kept[3], kept[4]],
    );
  });

  test('links and other lists are not filtered: GET /api/posts/<id>, and the Danbooru-compatible /posts.json', async () => {
    await putOk(ctx.app, member.headers, { blacklist: ['cat'], ratings: ['safe'] });
    const cat = (await everything({ tag: 'cat', contentRating: 'unsafe' }))[0];
    const one = await ctx.app.inject({ url: `/api/posts/${cat.id}`, headers: member.headers });
    assert.equal(one.statusCode, 200, one.body);
    assert.equal(one.json().id, cat.id);
    const danbooru = await ctx.app.inject({ url: '/posts.json?limit=100', headers: member.headers });
    assert.equal(danbooru.statusCode, 200, danbooru.body);
    assert.equal(danbooru.json().length, TAGS.length);
  });
});
