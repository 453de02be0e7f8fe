import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eachDatabase, getJson, type Ctx } from '../../../test/helpers.ts';
import { memberHeaders } from '../../../test/auth-helpers.ts';
import { addComment, addFavorite, addLike, createPost, createUser } from '../../../test/factories.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

type Rating = 'safe' | 'sketchy' | 'unsafe';
interface Spec {
  key: string;
  title: string;
  by: string;
  tags: string[];
  rating: Rating;
  at: number;
  likes: number;
  comments: number;
  favorites: number;
  description?: string;
}

/** Six posts with distinct counters and tricky titles, plus 24 fillers: 30 posts in all. */
function specs(now: number): Spec[] {
  const todayStart = Math.floor(now / DAY) * DAY;
  const s = (key: string, title: string, by: string, tags: string[], rating: Rating, at: number, likes: number, comments: number, favorites: number) => ({
    key,
    title,
    by,
    tags,
    rating,
    at,
    likes,
    comments,
    favorites,
  });
  const list: Spec[] = [
    { ...s('sunset', 'Sunset over the Sea', 'alice', ['sky', 'beach'], 'safe', now - HOUR + 123, 3, 1, 2), description: 'Golden hour at the pier.' },
    s('cat', 'Sleepy cat', 'alice', ['cute', 'cat'], 'sketchy', now - 2 * DAY, 5, 0, 1),
    s('pct', '100% Pure', 'Bob', ['misc'], 'safe', todayStart - 2 * DAY - 1, 1, 4, 0), // the last ms of a UTC day
    s('snake', 'snake_case title', 'Bob', ['code'], 'unsafe', now - 4 * DAY, 0, 2, 4),
    s('beachcat', 'Cat on the beach', 'Bob', ['cat', 'beach'], 'unsafe', now - 5 * DAY, 2, 3, 3),
    s('cube', 'nice cube', 'alice', ['misc'], 'safe', now - 6 * DAY, 4, 5, 5), // 'e c' would match a LIKE pattern 'e_c'
  ];
  for (let i = 1; i <= 24; i++) list.push(s(`filler${i}`, `Filler ${i}`, 'carol', ['filler'], 'safe', now - (10 + i) * DAY, 0, 0, 0));
  return list;
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

eachDatabase('GET /api/posts', (ctx: Ctx) => {
  let all: Spec[] = [];
  const id: Record<string, string> = {};
  const userId: Record<string, number> = {};
  const ALICE_AVATAR = 'avatars/al/alice.webp';

  before(async () => {
    const db = ctx.database;
    all = specs(ctx.clock.now());
    userId.alice = await createUser(db, { username: 'alice', avatarPath: ALICE_AVATAR });
    userId.Bob = await createUser(db, { username: 'Bob' });
    userId.carol = await createUser(db, { username: 'carol' });
    const fans: number[] = [];
    for (let i = 0; i < 5; i++) fans.push(await createUser(db, { username: `fan${i}` }));
    for (const p of all) {
      const pid = await createPost(db, {
        uploaderId: userId[p.by],
        title: p.title,
        description: p.description,
        tags: p.tags,
        rating: p.rating,
        createdAt: p.at,
      });
      id[p.key] = String(pid);
      for (let i = 0; i < p.likes; i++) await addLike(db, fans[i], pid, p.at + 1);
      for (let i = 0; i < p.favorites; i++) await addFavorite(db, fans[i], pid, p.at + 1);
      for (let i = 0; i < p.comments; i++) await addComment(db, { postId: pid, userId: userId.carol, createdAt: p.at + 1 });
    }
  });

  const newest = (a: Spec, b: Spec) => b.at - a.at;
  const expected = (pred: (s: Spec) => boolean, order = newest) =>
    all
      .filter(pred)
      .sort(order)
      .map((s) => id[s.key]);
  const spec = (postId: string) => all.find((s) => id[s.key] === postId)!;
  // As a member without filters, who is listed every rating (a visitor's safe-only default: preferences.test.ts).
  async function list(query: string) {
    const res = await getJson(ctx.app, `/api/posts${query}`, await memberHeaders(ctx.app));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body as { posts: any[]; totalPosts: number; currentPage: number; totalPages: number };
  }
  const ids = async (query: string) => (await list(query)).posts.map((p) => p.id);
  async function rejects(query: string, param: string) {
    const res = await getJson(ctx.app, `/api/posts${query}`);
    assert.equal(res.status, 400, `${query} should be refused`);
    assert.equal(res.body.status, 400);
    assert.match(res.body.error, new RegExp(param), `${query}: the error names ${param}`);
    return res.body;
  }

  test('defaults: newest first, 24 per page, page 1 of 2', async () => {
    const body = await list('');
    assert.equal(all.length, 30);
    assert.deepEqual(
      body.posts.map((p) => p.id),
      expected(() => true).slice(0, 24),
    );
    assert.equal(body.totalPosts, 30);
    assert.equal(body.currentPage, 1);
    assert.equal(body.totalPages, 2);
  });

  test('offset and limit page through the newest order; currentPage and totalPages follow', async () => {
    const order = expected(() => true);
    for (const [offset, limit] of [
      [0, 24],
      [10, 7],
      [29, 5],
      [30, 10],
      [5, 10],
      [0, 100],
      [0, 1],
    ]) {
      const body = await list(`?offset=${offset}&limit=${limit}`);
      assert.deepEqual(
        body.posts.map((p) => p.id),
        order.slice(offset, offset + limit),
        `offset=${offset} limit=${limit}`,
      );
      assert.equal(body.totalPosts, 30);
      assert.equal(body.currentPage, Math.floor(offset / limit) + 1);
      assert.equal(body.totalPages, Math.ceil(30 / limit));
    }
  });

  test('limit outside 1..100 or not a number, and a negative offset, are 400 naming the parameter', async () => {
    for (const bad of ['0', '101', '500', '-1', 'abc', '1.5']) {
      const body = await rejects(`?limit=${bad}`, 'limit');
      assert.equal(body.details[0].field, 'limit');
    }
    await rejects('?offset=-1', 'offset');
    await rejects('?offset=x', 'offset');
  });

  test('an unknown parameter is 400 naming it', async () => {
    const body = await rejects('?foo=1', 'foo');
    assert.equal(body.details[0].field, 'foo');
    await rejects('?page=2', 'page');
  });

  test('search: every term matches the title (substring, any case) or is a whole tag name', async () => {
    const match = (q: string) => (s: Spec) =>
      q
        .trim()
        .toLowerCase()
        .split(/\s+/)
        .every((t) => s.title.toLowerCase().includes(t) || s.tags.includes(t));
    const cases: [string, string[]][] = [
      ['sunset', ['sunset']],
      ['SuNsEt', ['sunset']],
      ['cute', ['cat']],
      ['beach', ['sunset', 'beachcat']],
      ['bea', ['beachcat']],
      ['cat', ['cat', 'beachcat']],
      ['  cat   beach ', ['beachcat']],
      ['sky sea', ['sunset']],
      ['Filler 1', ['filler1', ...Array.from({ length: 10 }, (_, i) => `filler${i + 10}`), 'filler21']],
      ['nomatch', []],
    ];
    for (const [q, keys] of cases) {
      const want = expected(match(q));
      assert.deepEqual(
        want,
        expected((s) => keys.includes(s.key)),
        `fixture check for '${q}'`,
      );
      const body = await list(`?limit=100&search=${encodeURIComponent(q)}`);
      assert.deepEqual(
        body.posts.map((p) => p.id),
        want,
        `search '${q}'`,
      );
      assert.equal(body.totalPosts, want.length);
      assert.equal(body.totalPages, Math.ceil(want.length / 100));
    }
  });

  test('search: % and _ in a term are literal characters, not wildcards', async () => {
    assert.deepEqual(await ids(`?search=${encodeURIComponent('%')}`), [id.pct]);
    assert.deepEqual(await ids(`?search=${encodeURIComponent('100%')}`), [id.pct]);
    assert.deepEqual(await ids('?search=_'), [id.snake]);
    assert.deepEqual(await ids('?search=e_c'), [id.snake], "'nice cube' has 'e c' but not 'e_c'");
  });

  test('uploader: case-insensitive; an unknown uploader gives an empty list', async () => {
    for (const [q, who] of [
      ['alice', 'alice'],
      ['ALICE', 'alice'],
      ['bob', 'Bob'],
      ['BOB', 'Bob'],
      ['carol', 'carol'],
    ]) {
      const body = await list(`?limit=100&uploader=${q}`);
      assert.deepEqual(
        body.posts.map((p) => p.id),
        expected((s) => s.by === who),
        `uploader=${q}`,
      );
      assert.ok(body.posts.every((p) => p.author.username === who));
    }
    const none = await list('?uploader=nobody');
    assert.deepEqual(none, { posts: [], totalPosts: 0, totalIsEstimate: false, currentPage: 1, totalPages: 0, nextCursor: null, hiddenPosts: 0 });
  });

  test('tag, repeated: the post must carry every tag; an unknown tag gives an empty list', async () => {
    assert.deepEqual(
      await ids('?tag=beach'),
      expected((s) => s.tags.includes('beach')),
    );
    assert.deepEqual(await ids('?tag=beach&tag=cat'), [id.beachcat]);
    assert.deepEqual(await ids('?tag=misc&tag=cat'), []);
    assert.deepEqual(
      await ids('?tag=CAT'),
      expected((s) => s.tags.includes('cat')),
    );
    assert.equal((await list('?tag=nosuchtag')).totalPosts, 0);
    assert.deepEqual(await ids('?tag=beach&tag=nosuchtag'), []);
  });

  test('sortBy: oldest reverses newest; the counter sorts put the highest count first', async () => {
    assert.deepEqual(
      await ids('?limit=100&sortBy=newest'),
      expected(() => true),
    );
    assert.deepEqual(await ids('?limit=100&sortBy=oldest'), expected(() => true).reverse());
    for (const [sort, field] of [
      ['most_liked', 'likes'],
      ['most_commented', 'comments'],
      ['most_favorited', 'favorites'],
    ] as const) {
      const got = await ids(`?limit=100&sortBy=${sort}`);
      const leaders = expected(
        (s) => s[field] > 0,
        (a, b) => b[field] - a[field],
      );
      assert.equal(leaders.length, 5);
      assert.deepEqual(got.slice(0, 5), leaders, sort);
      assert.deepEqual([...got].sort(), expected(() => true).sort(), `${sort} lists every post`);
      const counts = got.map((p) => spec(p)[field]);
      assert.deepEqual(
        counts,
        [...counts].sort((a, b) => b - a),
        `${sort} never goes up`,
      );
    }
  });

  test('sortBy with an unknown value is 400 listing the allowed values', async () => {
    const body = await rejects('?sortBy=popular', 'sortBy');
    for (const v of ['newest', 'oldest', 'most_liked', 'most_commented', 'most_favorited']) assert.match(body.error, new RegExp(v));
  });

  test('contentRating: each value filters; an unknown value is 400 listing the ratings', async () => {
    for (const r of ['safe', 'sketchy', 'unsafe'] as const) {
      const got = await list(`?limit=100&contentRating=${r}`);
      assert.deepEqual(
        got.posts.map((p) => p.id),
        expected((s) => s.rating === r),
        r,
      );
      assert.ok(got.posts.every((p) => p.contentRating === r));
    }
    const body = await rejects('?contentRating=nsfw', 'contentRating');
    for (const v of ['safe', 'sketchy', 'unsafe']) assert.match(body.error, new RegExp(v));
  });

  test('minLikes keeps posts with at least that many likes', async () => {
    for (const n of [0, 1, 3, 5, 6]) {
      const got = await list(`?limit=100&minLikes=${n}`);
      assert.deepEqual(
        got.posts.map((p) => p.id),
        expected((s) => s.likes >= n),
        `minLikes=${n}`,
      );
      assert.equal(got.totalPosts, all.filter((s) => s.likes >= n).length);
    }
    await rejects('?minLikes=-1', 'minLikes');
    await rejects('?minLikes=lots', 'minLikes');
  });

  test('dateFrom and dateTo are inclusive; a bare dateTo means the end of that UTC day', async () => {
    const pct = all.find((s) => s.key === 'pct')!;
    const cat = all.find((s) => s.key === 'cat')!;
    const from = (d: string) => Date.parse(d.length === 10 ? `${d}T00:00:00.000Z` : d);
    const cases: [string, (s: Spec) => boolean][] = [
      [`dateFrom=${day(cat.at)}`, (s) => s.at >= from(day(cat.at))],
      [`dateTo=${day(pct.at)}`, (s) => s.at <= pct.at],
      [`dateTo=${new Date(pct.at - 1).toISOString()}`, (s) => s.at < pct.at],
      [`dateFrom=${new Date(pct.at).toISOString()}`, (s) => s.at >= pct.at],
      [`dateFrom=${day(pct.at - 2 * DAY)}&dateTo=${day(pct.at)}`, (s) => s.at >= from(day(pct.at - 2 * DAY)) && s.at <= pct.at],
      [`dateFrom=${encodeURIComponent(new Date(cat.at).toISOString().replace('12:00:00.000Z', '14:00:00+02:00'))}`, (s) => s.at >= cat.at],
    ];
    for (const [q, pred] of cases) {
      const want = expected(pred);
      assert.ok(want.length > 0 && want.length < 30, `fixture check for ${q}`);
      assert.deepEqual(await ids(`?limit=100&${q}`), want, q);
    }
    assert.ok((await ids(`?dateTo=${day(pct.at)}`)).includes(id.pct), 'the last millisecond of the day is included');
  });

  test('a date that is not an ISO date is 400 naming the parameter', async () => {
    await rejects('?dateFrom=yesterday', 'dateFrom');
    await rejects('?dateTo=2026-13-01', 'dateTo');
    await rejects('?dateTo=2026-02-30', 'dateTo');
    await rejects('?dateFrom=2026-06-15T25:00:00Z', 'dateFrom');
    await rejects('?tag=nosuchtag&dateFrom=soon', 'dateFrom');
    await rejects('?uploader=nobody&dateTo=later', 'dateTo');
  });

  test('a list item carries the reference fields with their types', async () => {
    const [item] = (await list('?search=sunset')).posts;
    assert.equal(item.id, id.sunset);
    assert.equal(typeof item.id, 'string');
    assert.equal(item.title, 'Sunset over the Sea');
    assert.match(item.thumbnail, /^\/media\/\S+$/);
    assert.match(item.imageUrl, /^\/media\/\S+$/);
    assert.notEqual(item.thumbnail, item.imageUrl);
    assert.equal(item.likes, 3);
    assert.equal(item.comments, 1);
    assert.equal(item.contentRating, 'safe');
    assert.deepEqual(item.author, { username: 'alice' });
    assert.deepEqual(item.tags, ['beach', 'sky'], 'tags sorted by name');
  });

  test('GET /api/posts/<id> returns every field of the detail', async () => {
    const s = all.find((p) => p.key === 'sunset')!;
    const res = await getJson(ctx.app, `/api/posts/${id.sunset}`);
    assert.equal(res.status, 200);
    const p = res.body;
    assert.equal(p.id, id.sunset);
    assert.equal(p.title, s.title);
    assert.equal(p.content, s.description);
    assert.match(p.imageUrl, /^\/media\/\S+$/);
    assert.equal(p.mediaType, 'image');
    assert.deepEqual(p.stats, { likes: s.likes, comments: s.comments, favorites: s.favorites });
    assert.equal(p.contentRating, 'safe');
    assert.deepEqual(p.author, { id: String(userId.alice), username: 'alice', avatar: `/media/${ALICE_AVATAR}` });
    assert.deepEqual(p.tags, ['beach', 'sky']);
    assert.match(p.createdAt, ISO_MS);
    assert.equal(p.createdAt, new Date(s.at).toISOString());

    const bob = (await getJson(ctx.app, `/api/posts/${id.snake}`)).body;
    assert.deepEqual([bob.author.id, bob.author.username], [String(userId.Bob), 'Bob']);
    assert.match(bob.author.avatar, /^\/(?!media\/)\S+$/, 'a user without an avatar gets the default one');
    assert.equal((await ctx.app.inject({ method: 'GET', url: bob.author.avatar })).statusCode, 200);
    assert.deepEqual([bob.content, bob.stats.favorites], ['', 4]);
  });

  test('an unknown or malformed post id is 404 with { error, status }', async () => {
    const unknown = String(Math.max(...Object.values(id).map(Number)) + 1000);
    for (const bad of [unknown, 'abc', '0', '-1', '99999999999999999999999']) {
      const res = await getJson(ctx.app, `/api/posts/${bad}`);
      assert.equal(res.status, 404, bad);
      assert.equal(res.body.status, 404);
      assert.equal(typeof res.body.error, 'string');
    }
  });
});
