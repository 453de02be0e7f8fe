// parent:ID|any|none, has:parent and has:children through every strategy the planner may pick,
// with their errors, and fresh after the edits and deletes that move a parent.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { eachDatabase, getJson, type Ctx } from './helpers.ts';
import { createPost, createUser } from './factories.ts';
import { register, type Account } from './auth-helpers.ts';
import { DEFAULT_SEARCH } from '../src/search/settings.ts';

const list = (q: string) => `/api/posts?q=${encodeURIComponent(q)}&limit=100`;

async function ids(ctx: Ctx, q: string): Promise<number[]> {
  const res = await getJson(ctx.app, list(q));
  assert.equal(res.status, 200, `${q}: ${JSON.stringify(res.body)}`);
  assert.equal(res.body.totalPosts, res.body.posts.length, `total of ${q}`);
  return res.body.posts.map((p: { id: string }) => Number(p.id)).sort((a: number, b: number) => a - b);
}

for (const strategy of ['auto', 'sql', 'sets', 'columns', 'driven'] as const) {
  const title = `search: parents and children (strategy ${strategy})`;
  eachDatabase(
    // In the fleet modes auto alone: it plans onto the kept sets, and no setting of a server process forces a strategy.
    strategy === 'auto' ? { title, fleet: "a parent moved by an edit or a delete on one instance shows in the others' next search" } : title,
    (ctx) => {
      let alice: Account;
      // p[0] <- p[1], p[2]; p[1] <- p[3]; p[4] and p[5] alone.
      const p: number[] = [];
      before(async () => {
        alice = await register(ctx.app, 'alice');
        const other = await createUser(ctx.database, { username: 'other' });
        for (let i = 0; i < 6; i++)
          p.push(
            await createPost(ctx.database, {
              uploaderId: i < 4 ? Number(alice.id) : other,
              createdAt: Date.parse('2026-01-01') + i * 1000,
              tags: ['fam', `fam_${i % 2}`],
              likeCount: i,
            }),
          );
        for (const [child, parent] of [
          [1, 0],
          [2, 0],
          [3, 1],
        ]) {
          const res = await ctx.app.inject({
            method: 'PATCH',
            url: `/api/posts/${p[child]}`,
            headers: alice.headers,
            payload: { parentId: String(p[parent]) },
          });
          assert.equal(res.statusCode, 200, res.body);
        }
      });

      test('each term finds the posts it names, alone, negated and beside sets and counts', async () => {
        assert.deepEqual(await ids(ctx, 'has:parent'), [p[1], p[2], p[3]]);
        assert.deepEqual(await ids(ctx, 'parent:any'), [p[1], p[2], p[3]]);
        assert.deepEqual(await ids(ctx, 'parent:none'), [p[0], p[4], p[5]]);
        assert.deepEqual(await ids(ctx, '-has:parent'), [p[0], p[4], p[5]]);
        assert.deepEqual(await ids(ctx, 'has:children'), [p[0], p[1]]);
        assert.deepEqual(await ids(ctx, '-has:children'), [p[2], p[3], p[4], p[5]]);
        assert.deepEqual(await ids(ctx, `parent:${p[0]}`), [p[1], p[2]]);
        assert.deepEqual(await ids(ctx, `-parent:${p[0]}`), [p[0], p[3], p[4], p[5]]);
        assert.deepEqual(await ids(ctx, `id:${p[0]} or parent:${p[0]}`), [p[0], p[1], p[2]]);
        assert.deepEqual(await ids(ctx, 'parent:99999999'), []);
        assert.deepEqual(await ids(ctx, 'fam_1 has:parent'), [p[1], p[3]]);
        assert.deepEqual(await ids(ctx, 'fam has:children likes:>0'), [p[1]]);
        assert.deepEqual(await ids(ctx, 'fam_0 -has:children order:likes'), [p[2], p[4]]);
      });

      test('a value parent: cannot read is a 400 naming q, at the value', async () => {
        for (const [q, position] of [
          ['parent:abc', 7],
          ['cat parent:', 11],
          ['has:kids', 4],
        ] as const) {
          const res = await getJson(ctx.app, list(q));
          assert.equal(res.status, 400, `${q}: ${JSON.stringify(res.body)}`);
          assert.deepEqual(
            res.body.details.map((d: { field: string; position: number }) => [d.field, d.position]),
            [['q', position]],
          );
        }
      });

      test('an edit or a delete that moves a parent shows in the next search', async () => {
        assert.deepEqual(await ids(ctx, 'has:parent fam'), [p[1], p[2], p[3]]);
        const res = await ctx.app.inject({ method: 'PATCH', url: `/api/posts/${p[3]}`, headers: alice.headers, payload: { parentId: null } });
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(await ids(ctx, 'has:parent fam'), [p[1], p[2]]);
        assert.deepEqual(await ids(ctx, 'has:children fam'), [p[0]]);
        const del = await ctx.app.inject({ method: 'DELETE', url: `/api/posts/${p[0]}`, headers: alice.headers });
        assert.equal(del.statusCode, 200, del.body);
        assert.deepEqual(await ids(ctx, 'has:parent fam'), []);
        assert.deepEqual(await ids(ctx, 'has:children fam'), []);
        assert.deepEqual(await ids(ctx, 'parent:none fam'), [p[1], p[2], p[3], p[4], p[5]]);
      });
    },
    { search: { ...DEFAULT_SEARCH, strategy } },
  );
}
