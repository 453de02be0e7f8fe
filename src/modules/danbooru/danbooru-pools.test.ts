import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eachDatabase, type Ctx } from '../../../test/helpers.ts';
import { createKeyOk, register, setAccount, type Account } from '../../../test/auth-helpers.ts';
import { uploadTagged } from '../../../test/tag-helpers.ts';
import { assertDanbooruError, basic, DANBOORU_TIME } from '../../../test/danbooru-helpers.ts';

const get = (ctx: Ctx, url: string, headers: Record<string, string> = {}) => ctx.app.inject({ url, headers });

eachDatabase('danbooru API: pools', (ctx) => {
  let alice: Account;
  let bob: Account;
  let aliceKey: string;
  let posts: string[];
  let publicId: string;
  let privateId: string;
  before(async () => {
    alice = await register(ctx.app, 'alice');
    bob = await register(ctx.app, 'bob');
    await setAccount(ctx.database, 'alice', { tier: 'basic' });
    aliceKey = (await createKeyOk(ctx.app, alice.headers)).key;
    posts = [await uploadTagged(ctx, alice, 'p_one'), await uploadTagged(ctx, alice, 'p_two')];
    const make = async (name: string, isPublic: boolean, postIds: string[]) => {
      const res = await ctx.app.inject({ method: 'POST', url: '/api/pools', headers: alice.headers, payload: { name, isPublic, postIds } });
      assert.equal(res.statusCode, 201, res.body);
      return res.json().pool._id as string;
    };
    publicId = await make('Summer Trip', true, [posts[1], posts[0]]);
    privateId = await make('Secret Stash', false, [posts[0]]);
    for (let i = 0; i < 3; i++) await make(`Filler ${i}`, true, []);
  });

  test("a pool has Danbooru's fields, its name with underscores and its posts in pool order", async () => {
    const res = await get(ctx, `/pools/${publicId}.json`);
    assert.equal(res.statusCode, 200, res.body);
    const pool = res.json();
    assert.deepEqual(Object.keys(pool).sort(), [
      'category',
      'created_at',
      'description',
      'id',
      'is_active',
      'is_deleted',
      'name',
      'post_count',
      'post_ids',
      'updated_at',
    ]);
    assert.equal(pool.id, Number(publicId));
    assert.equal(pool.name, 'Summer_Trip');
    assert.deepEqual(pool.post_ids, [Number(posts[1]), Number(posts[0])]);
    assert.equal(pool.post_count, 2);
    assert.equal(pool.category, 'series');
    assert.equal(pool.is_active, true);
    assert.equal(pool.is_deleted, false);
    assert.match(pool.created_at, DANBOORU_TIME);
    assert.match(pool.updated_at, DANBOORU_TIME);
  });

  test('a private pool is shown to its creator only: 404 and absent from lists for anyone else', async () => {
    assertDanbooruError(await get(ctx, `/pools/${privateId}.json`), 404, 'ActiveRecord::RecordNotFound');
    assertDanbooruError(await get(ctx, `/pools/${privateId}.json`, bob.headers), 404, 'ActiveRecord::RecordNotFound');
    assert.equal((await get(ctx, `/pools/${privateId}.json`, basic('alice', aliceKey))).json().name, 'Secret_Stash');
    const names = async (headers: Record<string, string>) => (await get(ctx, '/pools.json?limit=100', headers)).json().map((p: { name: string }) => p.name);
    assert.ok(!(await names({})).includes('Secret_Stash'));
    assert.ok(!(await names(bob.headers)).includes('Secret_Stash'));
    assert.ok((await names(alice.headers)).includes('Secret_Stash'));
    assert.deepEqual((await get(ctx, `/pools.json?search[id]=${privateId}`)).json(), []);
  });

  test('searches by name (with * and underscores), id, category and order', async () => {
    const names = async (query: string) => (await get(ctx, `/pools.json?${query}`)).json().map((p: { name: string }) => p.name);
    assert.deepEqual(await names('search[name_matches]=summer_trip'), ['Summer_Trip']);
    assert.deepEqual(await names('search[name_matches]=sum*'), ['Summer_Trip']);
    assert.deepEqual(await names('search[name_matches]=*trip'), ['Summer_Trip']);
    assert.deepEqual(await names('search[name_matches]=trip'), ['Summer_Trip'], 'without a * it is a substring, as on Danbooru');
    assert.deepEqual(await names('search[name_contains]=MER_T'), ['Summer_Trip']);
    assert.deepEqual(await names(`search[id]=${publicId},abc`), ['Summer_Trip']);
    assert.deepEqual(await names('search[category]=collection'), []);
    assert.equal((await names('search[category]=series')).length, 4);
    assert.deepEqual(await names('search[order]=post_count&limit=1'), ['Summer_Trip']);
    assert.deepEqual(await names('search[order]=name&limit=2'), ['Filler_0', 'Filler_1']);
  });

  test('paging: limit and page, limits over 200 clamped, a page past 1000 is a 410', async () => {
    const page = async (query: string) => (await get(ctx, `/pools.json?search[order]=name&${query}`)).json().map((p: { name: string }) => p.name);
    assert.deepEqual(await page('limit=2&page=2'), ['Filler_2', 'Summer_Trip']);
    assert.equal((await page('limit=500')).length, 4);
    assert.deepEqual(await page('limit=2&page=1000'), []);
    const res = await get(ctx, '/pools.json?page=1001');
    assertDanbooruError(res, 410, 'PaginationExtension::PaginationError');
    assert.equal(res.json().message, 'You can only view up to 1000 pages. Please narrow your search terms.');
    assertDanbooruError(await get(ctx, '/pools/abc.json'), 404, 'ActiveRecord::RecordNotFound');
  });

  test("ordpool:ID, and pool:ID order:pool, list a pool's posts in the pool's own order, here and in our API", async () => {
    const [a, b, c] = [
      await uploadTagged(ctx, alice, 'page_one'),
      await uploadTagged(ctx, alice, 'page_two,marked'),
      await uploadTagged(ctx, alice, 'page_three,marked'),
    ];
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/pools',
      headers: alice.headers,
      payload: { name: 'A Comic', isPublic: true, postIds: [b, c, a] },
    });
    assert.equal(res.statusCode, 201, res.body);
    const pool = res.json().pool._id as string;
    const danbooru = async (tags: string) => (await get(ctx, `/posts.json?tags=${encodeURIComponent(tags)}`)).json().map((p: { id: number }) => String(p.id));
    const ours = async (q: string) => {
      const r = await get(ctx, `/api/posts?q=${encodeURIComponent(q)}`, alice.headers);
      assert.equal(r.statusCode, 200, r.body);
      return r.json().posts.map((p: { id: string }) => p.id);
    };
    assert.deepEqual(await danbooru(`ordpool:${pool}`), [b, c, a], "Danbooru's ordpool: is the pool's order");
    assert.deepEqual(await danbooru(`pool:${pool}`), [c, b, a], 'pool: alone is newest first');
    assert.deepEqual(await ours(`ordpool:${pool}`), [b, c, a]);
    assert.deepEqual(await ours(`pool:${pool} order:pool`), [b, c, a]);
    assert.deepEqual(await ours(`ordpool:${pool} marked`), [b, c], 'with other terms, still in pool order');
    assert.deepEqual(await ours('ordpool:999999'), [], 'an unknown pool matches nothing');
    const without = await get(ctx, `/api/posts?q=${encodeURIComponent('marked order:pool')}`, alice.headers);
    assert.equal(without.statusCode, 400);
    assert.match(without.json().error, /order:pool needs one pool:ID in the query/);
    const both = await get(ctx, `/api/posts?q=${encodeURIComponent(`ordpool:${pool} order:id`)}`, alice.headers);
    assert.equal(both.statusCode, 400);
    assert.match(both.json().error, /ordpool: gives the pool's order; leave out order:/);
  });
});
