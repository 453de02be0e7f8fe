import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { eachDatabase, getJson, mediaStored, type Ctx } from '../../../test/helpers.ts';
import { createPost } from '../../../test/factories.ts';
import { assertBadField, assertError, memberHeaders, register, setAccount, type Account } from '../../../test/auth-helpers.ts';
import { multipart } from '../../../test/multipart.ts';
import * as fx from '../../../test/media-fixtures.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
type Headers = Record<string, string>;

const patch = (ctx: Ctx, headers: Headers, id: string, payload: Record<string, unknown>) =>
  ctx.app.inject({ method: 'PATCH', url: `/api/posts/${id}`, headers, payload });
const del = (ctx: Ctx, headers: Headers, id: string) => ctx.app.inject({ method: 'DELETE', url: `/api/posts/${id}`, headers });

/** [postsCount, newPostsToday, newPostsThisWeek] of a tag as GET /api/tags shows it, or null when it is not listed. */
async function tag(ctx: Ctx, name: string): Promise<[number, number, number] | null> {
  const res = await getJson(ctx.app, `/api/tags?search=${name}&limit=200`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const t = res.body.tags.find((x: { name: string }) => x.name === name);
  return t ? [t.postsCount, t.newPostsToday, t.newPostsThisWeek] : null;
}

async function rows(ctx: Ctx, table: 'likes' | 'favorites' | 'comments' | 'pool_posts' | 'post_tags', postId: string): Promise<number> {
  const r = await ctx.database.selectFrom(table).select(sql<number>`count(*)`.as('n')).where('post_id', '=', Number(postId)).executeTakeFirstOrThrow();
  return Number(r.n);
}

eachDatabase(
  { title: 'PATCH and DELETE /api/posts/<id>', fleet: "edits and deletes on one instance move the others' kept sets and tag caches" },
  (ctx) => {
    let alice: Account;
    let bob: Account;
    let mod: Account;
    const post = async (tags: string[] = [], ago = HOUR, uploader?: Account) =>
      String(await createPost(ctx.database, { uploaderId: Number((uploader ?? alice).id), tags, createdAt: ctx.clock.now() - ago }));

    before(async () => {
      alice = await register(ctx.app, 'alice');
      bob = await register(ctx.app, 'bob');
      mod = await register(ctx.app, 'mod');
      await setAccount(ctx.database, 'mod', { role: 'moderator' });
    });

    test('the uploader edits title, content, contentRating and tags (array or comma-separated string)', async () => {
      const id = await post(['e_one']);
      const res = await patch(ctx, alice.headers, id, {
        title: '  New title ',
        content: 'Words about it',
        contentRating: 'sketchy',
        tags: ['E_Two', ' e three ', 'e_two'],
      });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.equal(body.id, id);
      assert.equal(body.title, 'New title');
      assert.equal(body.content, 'Words about it');
      assert.equal(body.contentRating, 'sketchy');
      assert.deepEqual(body.tags, ['e_three', 'e_two']);
      assert.deepEqual((await getJson(ctx.app, `/api/posts/${id}`)).body.tags, ['e_three', 'e_two']);

      const str = await patch(ctx, alice.headers, id, { tags: 'e_two, e_four,,  ' });
      assert.equal(str.statusCode, 200, str.body);
      assert.deepEqual(str.json().tags, ['e_four', 'e_two']);
      assert.equal(str.json().title, 'New title', 'fields not sent stay');
      const item = (await getJson(ctx.app, '/api/posts?search=e_four', await memberHeaders(ctx.app))).body.posts;
      assert.deepEqual(
        item.map((p: { id: string }) => p.id),
        [id],
      );
      assert.equal(item[0].contentRating, 'sketchy');
    });

    test('bad edits are 400 naming the field; an unknown post is 404; nothing changes', async () => {
      const id = await post(['e_bad']);
      assertBadField(await patch(ctx, alice.headers, id, { title: '' }), 'title');
      assertBadField(await patch(ctx, alice.headers, id, { title: '   ' }), 'title');
      assertBadField(await patch(ctx, alice.headers, id, { contentRating: 'nsfw' }), 'contentRating');
      assertBadField(await patch(ctx, alice.headers, id, { tags: ['ok', '-minus'] }), 'tags');
      assertError(await patch(ctx, alice.headers, id, {}), 400);
      assertError(await patch(ctx, alice.headers, '999999', { title: 'x' }), 404);
      const d = (await getJson(ctx.app, `/api/posts/${id}`)).body;
      assert.deepEqual([d.title, d.contentRating, d.tags], ['untitled', 'safe', ['e_bad']]);
      assert.deepEqual(await tag(ctx, 'ok'), null);
    });

    test('tag counts and the daily and weekly new-post counts follow edits', async () => {
      const today = await post(['t_a', 't_b'], HOUR);
      const days3 = await post(['t_b', 't_c'], 3 * DAY);
      const days10 = await post(['t_c'], 10 * DAY);
      assert.deepEqual(await tag(ctx, 't_a'), [1, 1, 1]);
      assert.deepEqual(await tag(ctx, 't_b'), [2, 1, 2]);
      assert.deepEqual(await tag(ctx, 't_c'), [2, 0, 1]);

      assert.equal((await patch(ctx, alice.headers, today, { tags: 't_b, t_d' })).statusCode, 200);
      assert.equal(await tag(ctx, 't_a'), null, 'a tag with no posts left is not listed');
      assert.deepEqual(await tag(ctx, 't_b'), [2, 1, 2], 'kept tag unchanged');
      assert.deepEqual(await tag(ctx, 't_d'), [1, 1, 1], 'added tag counts a post of today');

      // A 10-day-old post gets t_d: one more post, but not a new one this week.
      assert.equal((await patch(ctx, alice.headers, days10, { tags: ['t_c', 't_d'] })).statusCode, 200);
      assert.deepEqual(await tag(ctx, 't_d'), [2, 1, 1]);
      assert.deepEqual(await tag(ctx, 't_c'), [2, 0, 1]);

      assert.equal((await patch(ctx, alice.headers, days3, { tags: [] })).statusCode, 200);
      assert.deepEqual(await tag(ctx, 't_b'), [1, 1, 1]);
      assert.deepEqual(await tag(ctx, 't_c'), [1, 0, 0]);
      const week = (await getJson(ctx.app, '/api/tags?timeRange=week&search=t_&limit=200')).body.tags;
      assert.deepEqual(week.map((t: { name: string; postsCount: number }) => [t.name, t.postsCount]).sort(), [
        ['t_b', 1],
        ['t_d', 1],
      ]);

      // Putting a removed tag back brings it back.
      assert.equal((await patch(ctx, mod.headers, today, { tags: ['t_a', 't_b', 't_d'] })).statusCode, 200);
      assert.deepEqual(await tag(ctx, 't_a'), [1, 1, 1]);
    });

    test('deleting a post lowers each of its tags; a tag with no posts left disappears', async () => {
      const a = await post(['d_only', 'd_shared'], HOUR);
      await post(['d_shared'], 2 * DAY);
      assert.deepEqual(await tag(ctx, 'd_shared'), [2, 1, 2]);
      assert.equal((await del(ctx, alice.headers, a)).statusCode, 200);
      assert.equal(await tag(ctx, 'd_only'), null);
      assert.deepEqual(await tag(ctx, 'd_shared'), [1, 0, 1]);
      assert.equal(await rows(ctx, 'post_tags', a), 0);
      assertError(await ctx.app.inject({ url: `/api/posts/${a}` }), 404);
      assertError(await del(ctx, alice.headers, a), 404);
    });

    test('concurrent edits and deletes of the same posts keep every tag count equal to its posts', async () => {
      const names = ['c_1', 'c_2', 'c_3', 'c_4'];
      const ids = [await post(['c_1', 'c_2']), await post(['c_2', 'c_3']), await post(['c_1'])];
      const sets = [['c_1'], ['c_3', 'c_4'], ['c_2', 'c_4'], [], ['c_1', 'c_2', 'c_3']];
      const results = await Promise.all([
        ...ids.flatMap((id) => sets.map((tags) => patch(ctx, alice.headers, id, { tags }))),
        del(ctx, alice.headers, ids[1]),
        del(ctx, alice.headers, ids[1]),
        del(ctx, mod.headers, ids[1]),
      ]);
      for (const r of results) assert.ok([200, 404].includes(r.statusCode), `${r.statusCode} ${r.body}`);
      assert.equal(results.slice(-3).filter((r) => r.statusCode === 200).length, 1, 'one delete wins; the others find nothing');
      for (const name of names) {
        const linked = await ctx.database
          .selectFrom('post_tags')
          .innerJoin('tags', 'tags.id', 'post_tags.tag_id')
          .select(sql<number>`count(*)`.as('n'))
          .where('tags.name', '=', name)
          .executeTakeFirstOrThrow();
        assert.equal((await tag(ctx, name))?.[0] ?? 0, Number(linked.n), name);
      }
    });

    test('another user gets 403, anonymous 401, and the post is unchanged; a moderator may edit and delete', async () => {
      const id = await post(['m_tag']);
      for (const [who, status] of [
        [bob.headers, 403],
        [{}, 401],
        [{ 'x-api-key': 'ib_bogus' }, 401],
      ] as const) {
        assertError(await patch(ctx, who, id, { title: 'hijacked', tags: ['m_other'] }), status);
        assertError(await del(ctx, who, id), status);
      }
      const d = (await getJson(ctx.app, `/api/posts/${id}`)).body;
      assert.deepEqual([d.title, d.tags], ['untitled', ['m_tag']]);
      assert.equal(await tag(ctx, 'm_other'), null);

      const edited = await patch(ctx, mod.headers, id, { title: 'Moderated', tags: ['m_other'] });
      assert.equal(edited.statusCode, 200, edited.body);
      assert.equal(edited.json().author.username, 'alice', 'the uploader stays');
      assert.deepEqual(await tag(ctx, 'm_other'), [1, 1, 1]);
      assert.equal(await tag(ctx, 'm_tag'), null);
      assert.equal((await del(ctx, mod.headers, id)).statusCode, 200);
      assert.equal(await tag(ctx, 'm_other'), null);

      // A moderator's own post is not special to another user either.
      const modsPost = await post([], HOUR, mod);
      assertError(await del(ctx, alice.headers, modsPost), 403);
    });

    test('a deleted post takes its media, likes, comments, favorites and pool entries with it', async () => {
      const m = multipart({ title: 'doomed', tags: 'doomed_tag, keep_tag' }, [{ filename: 'doomed.png', data: await fx.png(41) }]);
      const up = await ctx.app.inject({ method: 'POST', url: '/api/upload', payload: m.payload, headers: { ...m.headers, ...alice.headers } });
      assert.equal(up.statusCode, 201, up.body);
      const id: string = up.json().post.id;
      const other = await post(['keep_tag']);
      const d = (await getJson(ctx.app, `/api/posts/${id}`)).body;
      const urls = [d.imageUrl, d.thumbnail].filter(Boolean) as string[];
      for (const u of urls) {
        assert.ok(await mediaStored(ctx, u), `${u} is stored`);
        assert.equal((await ctx.app.inject({ url: u })).statusCode, 200);
      }

      for (const who of [bob, mod]) {
        for (const kind of ['like', 'favorite']) {
          assert.equal((await ctx.app.inject({ method: 'PUT', url: `/api/posts/${id}/${kind}`, headers: who.headers })).statusCode, 200);
        }
      }
      await ctx.app.inject({ method: 'PUT', url: `/api/posts/${other}/like`, headers: bob.headers });
      const c = await ctx.app.inject({ method: 'POST', url: '/api/comments', headers: bob.headers, payload: { postId: id, content: 'hi' } });
      await ctx.app.inject({
        method: 'POST',
        url: '/api/comments',
        headers: alice.headers,
        payload: { postId: id, content: 'hey', parentId: c.json().comment.id },
      });
      const pool = await ctx.app.inject({ method: 'POST', url: '/api/pools', headers: bob.headers, payload: { name: 'With doomed', postIds: [other, id] } });
      assert.equal(pool.statusCode, 201, pool.body);
      const poolId: string = pool.json().pool._id;
      assert.equal(pool.json().pool.postCount, 2);
      const bobBefore = (await getJson(ctx.app, '/api/users/bob')).body.stats;

      const res = await del(ctx, alice.headers, id);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(typeof res.json().message, 'string');

      for (const u of urls) {
        assert.equal(await mediaStored(ctx, u), false, `${u} is gone`);
        assertError(await ctx.app.inject({ url: u }), 404);
      }
      assertError(await ctx.app.inject({ url: `/api/posts/${id}` }), 404);
      for (const table of ['likes', 'favorites', 'comments', 'pool_posts', 'post_tags'] as const) assert.equal(await rows(ctx, table, id), 0, table);
      const p = (await getJson(ctx.app, `/api/pools/${poolId}`)).body;
      assert.equal(p.pool.postCount, 1);
      assert.deepEqual(
        p.posts.map((x: { id: string }) => x.id),
        [other],
      );
      const listed = (await getJson(ctx.app, '/api/pools?limit=100', bob.headers)).body.pools.find((x: { _id: string }) => x._id === poolId);
      assert.equal(listed.postCount, 1);

      const bobAfter = (await getJson(ctx.app, '/api/users/bob')).body.stats;
      assert.deepEqual([bobAfter.likes, bobAfter.favorites, bobAfter.comments], [bobBefore.likes - 1, bobBefore.favorites - 1, bobBefore.comments - 1]);
      assert.equal(await tag(ctx, 'doomed_tag'), null);
      assert.deepEqual(await tag(ctx, 'keep_tag'), [1, 1, 1]);
      const o = (await getJson(ctx.app, `/api/posts/${other}`)).body;
      assert.equal(o.stats.likes, 1, 'another post keeps its likes');
      const again = await ctx.app.inject({ method: 'POST', url: '/api/upload', payload: m.payload, headers: { ...m.headers, ...alice.headers } });
      assert.equal(again.statusCode, 201, 'the same file may be uploaded again once its post is gone');
    });
  },
  { rateLimits: false },
);
