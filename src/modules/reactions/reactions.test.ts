import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { eachDatabase, getJson, type Ctx } from '../../../test/helpers.ts';
import { createPost } from '../../../test/factories.ts';
import { assertError, createKeyOk, register, setAccount, type Account } from '../../../test/auth-helpers.ts';

type Kind = 'like' | 'favorite';
const FIELDS = {
  like: { flag: 'liked', count: 'likes', table: 'likes', stat: 'likes' },
  favorite: { flag: 'favorited', count: 'favorites', table: 'favorites', stat: 'favorites' },
} as const;

function react(ctx: Ctx, headers: Record<string, string>, kind: Kind, postId: string, on: boolean) {
  return ctx.app.inject({ method: on ? 'PUT' : 'DELETE', url: `/api/posts/${postId}/${kind}`, headers });
}

async function reactOk(ctx: Ctx, who: Account, kind: Kind, postId: string, on: boolean) {
  const res = await react(ctx, who.headers, kind, postId, on);
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as Record<string, boolean | number>;
}

async function rowCount(ctx: Ctx, kind: Kind, postId: string): Promise<number> {
  const row = await ctx.database
    .selectFrom(FIELDS[kind].table)
    .select(sql<number>`count(*)`.as('n'))
    .where('post_id', '=', Number(postId))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function detail(ctx: Ctx, postId: string, who?: Account) {
  const res = await getJson(ctx.app, `/api/posts/${postId}`, who?.headers ?? {});
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

async function favorites(ctx: Ctx, username: string, query = '') {
  const res = await getJson(ctx.app, `/api/users/${username}/favorites${query}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as { posts: { id: string }[]; totalPosts: number; currentPage: number; totalPages: number };
}

eachDatabase(
  'likes and favorites',
  (ctx) => {
    let users: Account[];
    let alice: Account;
    let bob: Account;
    let key: string;
    const newPost = async (title = 'p') => String(await createPost(ctx.database, { uploaderId: Number(alice.id), title, createdAt: ctx.clock.now() }));

    before(async () => {
      users = [];
      for (let i = 0; i < 10; i++) users.push(await register(ctx.app, `user${i}`));
      [alice, bob] = users;
      await setAccount(ctx.database, users[9].username, { tier: 'basic' });
      key = (await createKeyOk(ctx.app, users[9].headers, 'reactions')).key;
    });

    for (const kind of ['like', 'favorite'] as const) {
      const f = FIELDS[kind];

      test(`${kind}: PUT and DELETE are idempotent and answer the new count; the post shows it and the viewer's flag`, async () => {
        const post = await newPost();
        assert.deepEqual(await reactOk(ctx, alice, kind, post, true), { [f.flag]: true, [f.count]: 1 });
        assert.deepEqual(await reactOk(ctx, alice, kind, post, true), { [f.flag]: true, [f.count]: 1 }, 'a second PUT changes nothing');
        assert.deepEqual(await reactOk(ctx, bob, kind, post, true), { [f.flag]: true, [f.count]: 2 });
        assert.equal((await detail(ctx, post)).stats[f.stat], 2);
        assert.equal((await detail(ctx, post, alice))[f.flag], true);
        assert.equal((await detail(ctx, post, users[2]))[f.flag], false);
        assert.equal((await detail(ctx, post))[f.flag], false, 'anonymous');

        assert.deepEqual(await reactOk(ctx, alice, kind, post, false), { [f.flag]: false, [f.count]: 1 });
        assert.deepEqual(await reactOk(ctx, alice, kind, post, false), { [f.flag]: false, [f.count]: 1 }, 'a second DELETE changes nothing');
        assert.deepEqual(await reactOk(ctx, users[3], kind, post, false), { [f.flag]: false, [f.count]: 1 }, 'never reacted');
        const after = await detail(ctx, post, alice);
        assert.equal(after[f.flag], false);
        assert.equal(after.stats[f.stat], 1);
        assert.equal(await rowCount(ctx, kind, post), 1);
        if (kind === 'like') {
          const item = (await getJson(ctx.app, '/api/posts?limit=100')).body.posts.find((p: { id: string }) => p.id === post);
          assert.equal(item.likes, 1, 'the list item follows');
        }
      });

      test(`${kind}: without a session or key 401; a key works; an unknown post is 404`, async () => {
        const post = await newPost();
        assertError(await react(ctx, {}, kind, post, true), 401);
        assertError(await react(ctx, {}, kind, post, false), 401);
        assertError(await react(ctx, { 'x-api-key': 'ib_nope' }, kind, post, true), 401);
        assert.equal(await rowCount(ctx, kind, post), 0);
        assertError(await react(ctx, alice.headers, kind, '999999', true), 404);
        assertError(await react(ctx, alice.headers, kind, 'abc', false), 404);

        const res = await react(ctx, { 'x-api-key': key }, kind, post, true);
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json(), { [f.flag]: true, [f.count]: 1 });
        assert.equal((await detail(ctx, post, users[9]))[f.flag], true);
      });

      test(`${kind}: many concurrent requests for one post keep the counter exact`, async () => {
        const post = await newPost('busy');
        // 30 PUTs: every user three times, all at once.
        const puts = await Promise.all(users.flatMap((u) => [0, 1, 2].map(() => react(ctx, u.headers, kind, post, true))));
        for (const r of puts) {
          assert.equal(r.statusCode, 200, r.body);
          const n = r.json()[f.count];
          assert.ok(n >= 1 && n <= users.length, `an answered count is between 1 and ${users.length}: ${n}`);
        }
        assert.equal((await detail(ctx, post)).stats[f.stat], users.length);
        assert.equal(await rowCount(ctx, kind, post), users.length);

        // Four users take theirs back (twice each) while the others PUT again, all at once.
        const leaving = users.slice(0, 4);
        await Promise.all([
          ...leaving.flatMap((u) => [react(ctx, u.headers, kind, post, false), react(ctx, u.headers, kind, post, false)]),
          ...users.slice(4).map((u) => react(ctx, u.headers, kind, post, true)),
        ]);
        assert.equal((await detail(ctx, post)).stats[f.stat], users.length - leaving.length);
        assert.equal(await rowCount(ctx, kind, post), users.length - leaving.length);

        // PUT and DELETE of the same users racing: whatever wins, counter = rows = users whose flag is set.
        await Promise.all(
          users.flatMap((u, i) => [
            react(ctx, u.headers, kind, post, i % 2 === 0),
            react(ctx, u.headers, kind, post, i % 2 !== 0),
            react(ctx, u.headers, kind, post, true),
          ]),
        );
        const flags = await Promise.all(users.map(async (u) => (await detail(ctx, post, u))[f.flag] as boolean));
        const stored = (await detail(ctx, post)).stats[f.stat];
        assert.equal(stored, await rowCount(ctx, kind, post));
        assert.equal(stored, flags.filter(Boolean).length);
      });
    }

    test('GET /api/users/<username>/favorites: most recently favorited first, in the shape of GET /api/posts', async () => {
      const fan = await register(ctx.app, 'fan');
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push(await newPost(`fav ${i}`));
      // Favorited in an order unrelated to creation: 2, 0, 4, 1, 3.
      for (const i of [2, 0, 4, 1, 3]) {
        ctx.clock.advance(1000);
        await reactOk(ctx, fan, 'favorite', ids[i], true);
      }
      const expected = [3, 1, 4, 0, 2].map((i) => ids[i]);
      const all = await favorites(ctx, fan.username);
      assert.deepEqual(
        all.posts.map((p) => p.id),
        expected,
      );
      assert.deepEqual([all.totalPosts, all.currentPage, all.totalPages], [5, 1, 1]);

      const listItem = (await getJson(ctx.app, '/api/posts?limit=100')).body.posts.find((p: { id: string }) => p.id === ids[3]);
      assert.deepEqual(all.posts[0], listItem, 'the same item as GET /api/posts');
      assert.deepEqual(Object.keys(all).sort(), ['currentPage', 'nextCursor', 'posts', 'totalIsEstimate', 'totalPages', 'totalPosts']);

      const page2 = await favorites(ctx, fan.username, '?offset=2&limit=2');
      assert.deepEqual(
        page2.posts.map((p) => p.id),
        expected.slice(2, 4),
      );
      assert.deepEqual([page2.totalPosts, page2.currentPage, page2.totalPages], [5, 2, 3]);
      const page3 = await favorites(ctx, fan.username, '?offset=4&limit=2');
      assert.deepEqual(
        page3.posts.map((p) => p.id),
        expected.slice(4),
      );
      assert.equal(page3.currentPage, 3);

      await reactOk(ctx, fan, 'favorite', ids[4], false);
      const after = await favorites(ctx, fan.username.toUpperCase());
      assert.deepEqual(
        after.posts.map((p) => p.id),
        [3, 1, 0, 2].map((i) => ids[i]),
      );
      assert.equal(after.totalPosts, 4);
      ctx.clock.advance(1000);
      await reactOk(ctx, fan, 'favorite', ids[4], true);
      assert.equal((await favorites(ctx, fan.username)).posts[0].id, ids[4], 'favorited again: first again');

      const none = await favorites(ctx, (await register(ctx.app, 'nofavs')).username);
      assert.deepEqual([none.posts, none.totalPosts, none.totalPages], [[], 0, 0]);
      assertError(await ctx.app.inject({ url: '/api/users/nobody_here/favorites' }), 404);
      assertError(await ctx.app.inject({ url: `/api/users/${fan.username}/favorites?limit=101` }), 400);
    });

    test("GET /api/users/<username> stats.likes and stats.favorites follow the user's reactions", async () => {
      const u = await register(ctx.app, 'counter');
      const stats = async () => (await getJson(ctx.app, '/api/users/counter')).body.stats as { likes: number; favorites: number };
      assert.deepEqual(await stats().then((s) => [s.likes, s.favorites]), [0, 0]);
      const a = await newPost();
      const b = await newPost();
      await reactOk(ctx, u, 'like', a, true);
      await reactOk(ctx, u, 'like', a, true);
      await reactOk(ctx, u, 'like', b, true);
      await reactOk(ctx, u, 'favorite', b, true);
      assert.deepEqual(await stats().then((s) => [s.likes, s.favorites]), [2, 1]);
      await reactOk(ctx, u, 'like', a, false);
      await reactOk(ctx, u, 'favorite', b, false);
      assert.deepEqual(await stats().then((s) => [s.likes, s.favorites]), [1, 0]);
    });
  },
  { rateLimits: false },
);
