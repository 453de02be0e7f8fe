import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { eachDatabase, getJson, type Ctx } from '../../../test/helpers.ts';
import { createPost } from '../../../test/factories.ts';
import { ISO_MS, assertBadField, assertError, register, setAccount, type Account } from '../../../test/auth-helpers.ts';

type Headers = Record<string, string>;
type PoolJson = { _id: string; name: string; description: string; postCount: number; isPublic: boolean; creator: { username: string } };

function call(ctx: Ctx, method: 'POST' | 'PATCH' | 'DELETE' | 'PUT', url: string, headers: Headers, payload?: Record<string, unknown>) {
  return ctx.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
}

async function createPoolOk(ctx: Ctx, who: Account, payload: Record<string, unknown>): Promise<PoolJson> {
  const res = await call(ctx, 'POST', '/api/pools', who.headers, payload);
  assert.equal(res.statusCode, 201, res.body);
  return res.json().pool;
}

async function getPool(ctx: Ctx, id: string, headers: Headers = {}) {
  const res = await getJson(ctx.app, `/api/pools/${id}`, headers);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as { pool: PoolJson; posts: { id: string; title: string }[] };
}

/** The pool as GET /api/pools lists it to these headers, or undefined. */
async function listed(ctx: Ctx, id: string, headers: Headers = {}) {
  const res = await getJson(ctx.app, '/api/pools?limit=100', headers);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return { pool: (res.body.pools as PoolJson[]).find((p) => p._id === id), total: res.body.totalPools as number };
}

/** The order GET /api/pools/<id> shows, its postCount, the list's postCount and the rows all agree. */
async function assertPosts(ctx: Ctx, id: string, expected: string[], headers: Headers = {}) {
  const p = await getPool(ctx, id, headers);
  assert.deepEqual(
    p.posts.map((x) => x.id),
    expected,
  );
  assert.equal(p.pool.postCount, expected.length);
  assert.equal((await listed(ctx, id, headers)).pool?.postCount, expected.length);
  const rows = await ctx.database.selectFrom('pool_posts').select(sql<number>`count(*)`.as('n')).where('pool_id', '=', Number(id)).executeTakeFirstOrThrow();
  assert.equal(Number(rows.n), expected.length);
}

eachDatabase(
  'pool writes',
  (ctx) => {
    let alice: Account;
    let bob: Account;
    let mod: Account;
    const posts: string[] = [];

    before(async () => {
      alice = await register(ctx.app, 'alice');
      bob = await register(ctx.app, 'bob');
      mod = await register(ctx.app, 'mod');
      await setAccount(ctx.database, 'mod', { role: 'moderator' });
      for (let i = 0; i < 12; i++)
        posts.push(String(await createPost(ctx.database, { uploaderId: Number(alice.id), title: `post ${i}`, createdAt: ctx.clock.now() - i * 1000 })));
    });

    test('POST /api/pools is 201 { pool }; GET /api/pools/<id> shows it with its posts in the given order', async () => {
      const res = await call(ctx, 'POST', '/api/pools', alice.headers, { name: '  Comic  ', description: 'Pages', postIds: [posts[2], posts[0], posts[1]] });
      assert.equal(res.statusCode, 201, res.body);
      const pool = res.json().pool;
      assert.deepEqual(Object.keys(res.json()), ['pool']);
      assert.match(pool._id, /^\d+$/);
      assert.deepEqual([pool.name, pool.description, pool.postCount, pool.isPublic, pool.creator], ['Comic', 'Pages', 3, true, { username: 'alice' }]);
      assert.match(pool.createdAt, ISO_MS);
      const got = await getPool(ctx, pool._id);
      assert.deepEqual(got.pool, pool);
      assert.deepEqual(
        got.posts.map((p) => p.title),
        ['post 2', 'post 0', 'post 1'],
      );
      await assertPosts(ctx, pool._id, [posts[2], posts[0], posts[1]]);
      const empty = await createPoolOk(ctx, bob, { name: 'Empty' });
      await assertPosts(ctx, empty._id, []);
    });

    test('bad pools are refused: blank name 400, unknown post 404, a post listed twice 400; nothing is created', async () => {
      const before = (await listed(ctx, '0', alice.headers)).total;
      assertBadField(await call(ctx, 'POST', '/api/pools', alice.headers, { name: '   ' }), 'name');
      assertBadField(await call(ctx, 'POST', '/api/pools', alice.headers, { description: 'no name' }), 'name');
      assertError(await call(ctx, 'POST', '/api/pools', alice.headers, { name: 'x', postIds: [posts[0], '999999'] }), 404);
      assertError(await call(ctx, 'POST', '/api/pools', alice.headers, { name: 'x', postIds: [posts[0], posts[0]] }), 400);
      assert.equal((await listed(ctx, '0', alice.headers)).total, before);
      assertError(await ctx.app.inject({ url: '/api/pools/999999' }), 404);
    });

    test('adding (at the end or at a position), removing and reordering posts keep postCount exact', async () => {
      const pool = await createPoolOk(ctx, alice, { name: 'Ordered', postIds: [posts[0]] });
      const add = await call(ctx, 'POST', `/api/pools/${pool._id}/posts`, alice.headers, { postId: posts[1] });
      assert.equal(add.statusCode, 200, add.body);
      assert.deepEqual(
        add.json().posts.map((p: { id: string }) => p.id),
        [posts[0], posts[1]],
      );
      assert.equal(add.json().pool.postCount, 2);
      await call(ctx, 'POST', `/api/pools/${pool._id}/posts`, alice.headers, { postId: posts[2], position: 1 });
      await call(ctx, 'POST', `/api/pools/${pool._id}/posts`, alice.headers, { postId: posts[3], position: 3 });
      await assertPosts(ctx, pool._id, [posts[2], posts[0], posts[3], posts[1]]);

      const twice = await call(ctx, 'POST', `/api/pools/${pool._id}/posts`, alice.headers, { postId: posts[0], position: 4 });
      assert.equal(twice.statusCode, 200, twice.body);
      await assertPosts(ctx, pool._id, [posts[2], posts[0], posts[3], posts[1]]);
      assertError(await call(ctx, 'POST', `/api/pools/${pool._id}/posts`, alice.headers, { postId: '999999' }), 404);

      const removed = await call(ctx, 'DELETE', `/api/pools/${pool._id}/posts/${posts[0]}`, alice.headers);
      assert.equal(removed.statusCode, 200, removed.body);
      await assertPosts(ctx, pool._id, [posts[2], posts[3], posts[1]]);
      assertError(await call(ctx, 'DELETE', `/api/pools/${pool._id}/posts/${posts[0]}`, alice.headers), 404);

      const order = [posts[1], posts[2], posts[3]];
      const re = await call(ctx, 'PUT', `/api/pools/${pool._id}/posts`, alice.headers, { postIds: order });
      assert.equal(re.statusCode, 200, re.body);
      assert.deepEqual(
        re.json().posts.map((p: { id: string }) => p.id),
        order,
      );
      await assertPosts(ctx, pool._id, order);
      for (const postIds of [
        [posts[1], posts[2]],
        [posts[1], posts[2], posts[4]],
        [posts[1], posts[2], posts[3], posts[4]],
      ]) {
        assertBadField(await call(ctx, 'PUT', `/api/pools/${pool._id}/posts`, alice.headers, { postIds }), 'postIds');
      }
      assertError(await call(ctx, 'PUT', `/api/pools/${pool._id}/posts`, alice.headers, { postIds: [posts[1], posts[1], posts[2]] }), 400);
      await assertPosts(ctx, pool._id, order);
    });

    test('concurrent adds to one pool: every post lands once and postCount equals the entries', async () => {
      const pool = await createPoolOk(ctx, alice, { name: 'Busy' });
      const adds = posts.slice(0, 10).map((postId) => call(ctx, 'POST', `/api/pools/${pool._id}/posts`, alice.headers, { postId }));
      const again = posts.slice(0, 3).map((postId) => call(ctx, 'POST', `/api/pools/${pool._id}/posts`, alice.headers, { postId }));
      for (const r of await Promise.all([...adds, ...again])) assert.equal(r.statusCode, 200, r.body);
      const got = await getPool(ctx, pool._id);
      assert.deepEqual(got.posts.map((p) => p.id).sort(), posts.slice(0, 10).sort());
      await assertPosts(
        ctx,
        pool._id,
        got.posts.map((p) => p.id),
      );
      const positions = await ctx.database.selectFrom('pool_posts').select('position').where('pool_id', '=', Number(pool._id)).orderBy('position').execute();
      assert.deepEqual(
        positions.map((p) => p.position),
        [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
      );

      const removes = posts.slice(0, 5).map((p) => call(ctx, 'DELETE', `/api/pools/${pool._id}/posts/${p}`, alice.headers));
      for (const r of await Promise.all(removes)) assert.equal(r.statusCode, 200, r.body);
      await assertPosts(
        ctx,
        pool._id,
        got.posts.map((p) => p.id).filter((id) => !posts.slice(0, 5).includes(id)),
      );
    });

    test('PATCH and DELETE: the creator and a moderator may; another user gets 403; the posts stay', async () => {
      const pool = await createPoolOk(ctx, alice, { name: 'Mine', postIds: [posts[5]] });
      const url = `/api/pools/${pool._id}`;
      assertError(await call(ctx, 'PATCH', url, bob.headers, { name: 'Stolen' }), 403);
      assertError(await call(ctx, 'DELETE', url, bob.headers), 403);
      assertError(await call(ctx, 'POST', `${url}/posts`, bob.headers, { postId: posts[6] }), 403);
      assertError(await call(ctx, 'DELETE', `${url}/posts/${posts[5]}`, bob.headers), 403);
      assertError(await call(ctx, 'PUT', `${url}/posts`, bob.headers, { postIds: [posts[5]] }), 403);
      await assertPosts(ctx, pool._id, [posts[5]]);
      assert.equal((await getPool(ctx, pool._id)).pool.name, 'Mine');

      const edited = await call(ctx, 'PATCH', url, alice.headers, { name: 'Renamed', description: 'New words' });
      assert.equal(edited.statusCode, 200, edited.body);
      assert.deepEqual([edited.json().pool.name, edited.json().pool.description, edited.json().pool.postCount], ['Renamed', 'New words', 1]);
      assertBadField(await call(ctx, 'PATCH', url, alice.headers, { name: ' ' }), 'name');
      assertError(await call(ctx, 'PATCH', url, alice.headers, {}), 400);
      const byMod = await call(ctx, 'PATCH', url, mod.headers, { description: 'moderated' });
      assert.equal(byMod.statusCode, 200, byMod.body);
      assert.equal(byMod.json().pool.creator.username, 'alice');

      assert.equal((await call(ctx, 'DELETE', url, alice.headers)).statusCode, 200);
      assertError(await ctx.app.inject({ url }), 404);
      assert.equal((await listed(ctx, pool._id, alice.headers)).pool, undefined);
      assert.equal((await getJson(ctx.app, `/api/posts/${posts[5]}`)).status, 200, 'the post stays');
      const other = await createPoolOk(ctx, bob, { name: 'Bob pool' });
      assert.equal((await call(ctx, 'DELETE', `/api/pools/${other._id}`, mod.headers)).statusCode, 200);
    });

    test('a private pool is seen only by its creator, in GET /api/pools/<id> and in GET /api/pools', async () => {
      const secret = await createPoolOk(ctx, alice, { name: 'Secret', isPublic: false, postIds: [posts[7]] });
      assert.equal(secret.isPublic, false);
      const url = `/api/pools/${secret._id}`;
      assertError(await ctx.app.inject({ url }), 404);
      assertError(await ctx.app.inject({ url, headers: bob.headers }), 404);
      assert.equal((await getPool(ctx, secret._id, alice.headers)).posts[0].id, posts[7]);

      const anon = await listed(ctx, secret._id);
      const asBob = await listed(ctx, secret._id, bob.headers);
      const asAlice = await listed(ctx, secret._id, alice.headers);
      assert.equal(anon.pool, undefined);
      assert.equal(asBob.pool, undefined);
      assert.equal(asAlice.pool?.name, 'Secret');
      assert.equal(asAlice.total, anon.total + 1);

      // Others can neither see nor change it.
      assertError(await call(ctx, 'PATCH', url, bob.headers, { name: 'x' }), 404);
      assertError(await call(ctx, 'POST', `${url}/posts`, bob.headers, { postId: posts[8] }), 404);
      assertError(await call(ctx, 'DELETE', url, bob.headers), 404);
      await assertPosts(ctx, secret._id, [posts[7]], alice.headers);

      const opened = await call(ctx, 'PATCH', url, alice.headers, { isPublic: true });
      assert.equal(opened.json().pool.isPublic, true);
      assert.equal((await listed(ctx, secret._id)).pool?.name, 'Secret');
      assert.equal((await getJson(ctx.app, url, bob.headers)).status, 200);
      await call(ctx, 'PATCH', url, alice.headers, { isPublic: false });
      assert.equal((await listed(ctx, secret._id, bob.headers)).pool, undefined);
    });

    test('every pool write without a session or key is 401', async () => {
      const pool = await createPoolOk(ctx, alice, { name: 'Guarded', postIds: [posts[9]] });
      const url = `/api/pools/${pool._id}`;
      for (const headers of [{}, { 'x-api-key': 'ib_invalid' }] as Headers[]) {
        assertError(await call(ctx, 'POST', '/api/pools', headers, { name: 'anon' }), 401);
        assertError(await call(ctx, 'PATCH', url, headers, { name: 'anon' }), 401);
        assertError(await call(ctx, 'POST', `${url}/posts`, headers, { postId: posts[10] }), 401);
        assertError(await call(ctx, 'PUT', `${url}/posts`, headers, { postIds: [posts[9]] }), 401);
        assertError(await call(ctx, 'DELETE', `${url}/posts/${posts[9]}`, headers), 401);
        assertError(await call(ctx, 'DELETE', url, headers), 401);
      }
      await assertPosts(ctx, pool._id, [posts[9]]);
      assert.equal((await getPool(ctx, pool._id)).pool.name, 'Guarded');
    });
  },
  { rateLimits: false },
);
