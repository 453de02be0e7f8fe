import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eachDatabase, getJson, type Ctx } from '../../../test/helpers.ts';
import { createPool, createPost, createUser } from '../../../test/factories.ts';

const HOUR = 3_600_000;

interface PoolSpec {
  key: string;
  name: string;
  by: 'alice' | 'bob';
  isPublic: boolean;
  updatedAgo: number;
  posts: number;
  description: string;
}

/** 23 public and 3 private pools, each updated at a distinct time. */
function poolSpecs(): PoolSpec[] {
  const out: PoolSpec[] = [];
  for (let i = 0; i < 26; i++) {
    const isPublic = ![2, 9, 17].includes(i);
    out.push({
      key: `p${i}`,
      name: `${isPublic ? 'Pool' : 'Secret pool'} ${i}`,
      by: i % 2 === 0 ? 'alice' : 'bob',
      isPublic,
      updatedAgo: (i + 1) * HOUR,
      posts: i % 4,
      description: i % 3 === 0 ? '' : `Pool number ${i}`,
    });
  }
  return out;
}

eachDatabase('GET /api/pools', (ctx: Ctx) => {
  const specs = poolSpecs();
  const poolId: Record<string, string> = {};
  let edited: PoolSpec;

  before(async () => {
    const db = ctx.database;
    const now = ctx.clock.now();
    const users = { alice: await createUser(db, { username: 'alice' }), bob: await createUser(db, { username: 'Bob' }) };
    const postIds: number[] = [];
    for (let i = 0; i < 3; i++) postIds.push(await createPost(db, { uploaderId: users.alice, createdAt: now - 100 * HOUR + i }));
    for (const p of specs) {
      // Created in an order unrelated to the update order, so the two cannot be confused.
      const id = await createPool(db, {
        creatorId: users[p.by],
        name: p.name,
        description: p.description,
        isPublic: p.isPublic,
        postIds: postIds.slice(0, p.posts),
        at: now - p.updatedAgo,
      });
      poolId[p.key] = String(id);
    }
    // The oldest public pool was just edited: it moves to the top.
    edited = specs.filter((p) => p.isPublic).sort((a, b) => b.updatedAgo - a.updatedAgo)[0];
    await db
      .updateTable('pools')
      .set({ updated_at: now - 1000 })
      .where('id', '=', Number(poolId[edited.key]))
      .execute();
    edited.updatedAgo = 1000;
  });

  const visible = () => specs.filter((p) => p.isPublic).sort((a, b) => a.updatedAgo - b.updatedAgo);
  async function list(query: string) {
    const res = await getJson(ctx.app, `/api/pools${query}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body as { pools: any[]; totalPools: number; page: number; totalPages: number };
  }

  test('anonymous callers see only public pools, most recently updated first, 20 per page', async () => {
    const body = await list('');
    const want = visible();
    assert.equal(want.length, 23);
    assert.deepEqual(
      body.pools.map((p) => p._id),
      want.slice(0, 20).map((p) => poolId[p.key]),
    );
    assert.equal(body.pools[0]._id, poolId[edited.key], 'the pool edited last comes first');
    assert.equal(body.totalPools, 23, 'private pools are not counted');
    assert.equal(body.page, 1);
    assert.equal(body.totalPages, 2);
  });

  test('private pools never appear on any page', async () => {
    const seen = new Set<string>();
    for (let page = 1; page <= 3; page++) for (const p of (await list(`?page=${page}&limit=10`)).pools) seen.add(p._id);
    assert.equal(seen.size, 23);
    for (const p of specs.filter((s) => !s.isPublic)) assert.ok(!seen.has(poolId[p.key]), `${p.name} is hidden`);
    const all = await list('?limit=100');
    assert.ok(all.pools.every((p) => p.isPublic === true));
  });

  test('page and limit pick the right slice; totalPages = ceil(totalPools / limit)', async () => {
    const order = visible().map((p) => poolId[p.key]);
    for (const [page, limit] of [
      [2, 20],
      [3, 5],
      [5, 5],
      [6, 5],
      [1, 100],
      [1, 1],
      [23, 1],
    ]) {
      const body = await list(`?page=${page}&limit=${limit}`);
      assert.deepEqual(
        body.pools.map((p) => p._id),
        order.slice((page - 1) * limit, page * limit),
        `page=${page} limit=${limit}`,
      );
      assert.equal(body.page, page);
      assert.equal(body.totalPools, 23);
      assert.equal(body.totalPages, Math.ceil(23 / limit));
    }
  });

  test('each pool carries _id, name, description, postCount, isPublic and creator', async () => {
    const body = await list('?limit=100');
    for (const p of body.pools) {
      const spec = specs.find((s) => poolId[s.key] === p._id)!;
      assert.equal(typeof p._id, 'string');
      assert.equal(p.name, spec.name);
      assert.equal(p.description, spec.description);
      assert.equal(p.postCount, spec.posts);
      assert.equal(p.isPublic, true);
      assert.deepEqual(p.creator, { username: spec.by === 'bob' ? 'Bob' : 'alice' });
    }
  });

  test('bad page, limit or an unknown parameter are 400 naming the parameter', async () => {
    for (const [q, param] of [
      ['limit=101', 'limit'],
      ['limit=0', 'limit'],
      ['limit=x', 'limit'],
      ['page=0', 'page'],
      ['page=-2', 'page'],
      ['offset=5', 'offset'],
    ]) {
      const res = await getJson(ctx.app, `/api/pools?${q}`);
      assert.equal(res.status, 400, q);
      assert.equal(res.body.status, 400);
      assert.match(res.body.error, new RegExp(param));
    }
  });
});
