import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { eachDatabase } from '../../../test/helpers.ts';
import { addLike, createPost, createUser, postRow } from '../../../test/factories.ts';
import { listPage, postsService } from '../../../test/helpers.ts';
import { deletePostRows } from './posts.delete.ts';
import { memberHeaders } from '../../../test/auth-helpers.ts';

const HOUR = 3_600_000;

eachDatabase({ title: 'post lists: stored totals, title search, cursors', fleet: "writes on one instance move the others' kept sets" }, (ctx) => {
  const ids: number[] = [];
  before(async () => {
    const db = ctx.database;
    const u = await createUser(db, { username: 'maker' });
    for (let i = 0; i < 30; i++) {
      const rating = (['safe', 'sketchy', 'unsafe'] as const)[i % 3];
      ids.push(
        await createPost(db, {
          uploaderId: u,
          title: i % 2 ? `Dragon number ${i}` : `Quiet lake ${i}`,
          rating,
          tags: i % 5 ? ['common'] : ['common', 'fifth'],
          createdAt: ctx.clock.now() - (30 - i) * HOUR,
        }),
      );
    }
    await addLike(db, u, ids[3], ctx.clock.now());
  });

  const counters = async () => Object.fromEntries((await ctx.database.selectFrom('counters').selectAll().execute()).map((r) => [r.name, Number(r.value)]));
  const actual = async () => {
    const rows = await ctx.database
      .selectFrom('posts')
      .select(['content_rating', sql<number>`count(*)`.as('n')])
      .groupBy('content_rating')
      .execute();
    const by = Object.fromEntries(rows.map((r) => [`posts:${r.content_rating}`, Number(r.n)]));
    return {
      posts: Object.values(by).reduce((a, b) => a + b, 0),
      'posts:safe': by['posts:safe'] ?? 0,
      'posts:sketchy': by['posts:sketchy'] ?? 0,
      'posts:unsafe': by['posts:unsafe'] ?? 0,
    };
  };

  test('stored totals stay exact through inserts, rating edits and deletes, and answer unfiltered counts', async () => {
    const c0 = await counters();
    assert.deepEqual(
      { posts: c0.posts, 'posts:safe': c0['posts:safe'], 'posts:sketchy': c0['posts:sketchy'], 'posts:unsafe': c0['posts:unsafe'] },
      await actual(),
    );
    await ctx.database.updateTable('posts').set({ content_rating: 'unsafe' }).where('id', '=', ids[0]).execute();
    await deletePostRows(ctx.database, ids[1]);
    const c1 = await counters();
    assert.deepEqual(
      { posts: c1.posts, 'posts:safe': c1['posts:safe'], 'posts:sketchy': c1['posts:sketchy'], 'posts:unsafe': c1['posts:unsafe'] },
      await actual(),
    );
    assert.ok(c1.version > c0.version, 'every post change moves the data version');
    const all = (await ctx.app.inject({ url: '/api/posts', headers: await memberHeaders(ctx.app) })).json();
    assert.equal(all.totalPosts, 29);
    assert.equal(all.totalIsEstimate, false);
    const unsafe = (await ctx.app.inject({ url: '/api/posts?contentRating=unsafe' })).json();
    assert.equal(unsafe.totalPosts, (await actual())['posts:unsafe']);
  });

  test('title search goes through the search index and follows title edits and deletes', async () => {
    const search = async (q: string) =>
      (await ctx.app.inject({ url: `/api/posts?limit=100&search=${encodeURIComponent(q)}`, headers: await memberHeaders(ctx.app) })).json();
    const before = await search('DRAGON');
    assert.equal(before.totalPosts, before.posts.length);
    assert.ok(before.posts.every((p: { title: string }) => /dragon/i.test(p.title)));
    await ctx.database.updateTable('posts').set({ title: 'Sleeping wyvern' }).where('id', '=', ids[5]).execute();
    const after = await search('dragon');
    assert.equal(after.totalPosts, before.totalPosts - 1);
    assert.equal((await search('wyvern')).posts[0].id, String(ids[5]));
    assert.equal((await search('umber 1')).totalPosts, (await search('dragon number 1')).totalPosts, 'substrings across words');
  });

  test('before=<id> pages by keyset in newest order; nextCursor leads on', async () => {
    const first = (await ctx.app.inject({ url: '/api/posts?limit=7', headers: await memberHeaders(ctx.app) })).json();
    const second = (await ctx.app.inject({ url: `/api/posts?limit=7&before=${first.nextCursor}`, headers: await memberHeaders(ctx.app) })).json();
    const byOffset = (await ctx.app.inject({ url: '/api/posts?limit=7&offset=7', headers: await memberHeaders(ctx.app) })).json();
    assert.deepEqual(
      second.posts.map((p: { id: string }) => p.id),
      byOffset.posts.map((p: { id: string }) => p.id),
    );
    const tagged = (await ctx.app.inject({ url: `/api/posts?limit=3&tag=fifth&before=${first.posts[0].id}`, headers: await memberHeaders(ctx.app) })).json();
    assert.ok(tagged.posts.every((p: { tags: string[] }) => p.tags.includes('fifth')));
    for (const bad of ['abc', '999999']) {
      const res = await ctx.app.inject({ url: `/api/posts?before=${bad}` });
      assert.equal(res.statusCode, 400);
      assert.match(res.json().error, /before/);
    }
    assert.equal((await ctx.app.inject({ url: `/api/posts?before=${ids[9]}&sortBy=oldest` })).statusCode, 400);
  });

  test('statements that insert, re-rate and delete many posts at once move the totals by all of them', async () => {
    const db = ctx.database;
    const u = await createUser(db, { username: 'bulk' });
    const totals = async () => {
      const c = await counters();
      return { posts: c.posts, 'posts:safe': c['posts:safe'], 'posts:sketchy': c['posts:sketchy'], 'posts:unsafe': c['posts:unsafe'] };
    };
    const v0 = (await counters()).version;
    const ratings = ['safe', 'unsafe', 'unsafe', 'sketchy', 'safe', 'safe'] as const;
    const added = await db
      .insertInto('posts')
      .values(ratings.map((rating, i) => postRow({ uploaderId: u, rating, title: `bulk ${i}`, createdAt: ctx.clock.now() })))
      .returning('id')
      .execute();
    assert.deepEqual(await totals(), await actual(), 'after one insert of six');
    const v1 = (await counters()).version;
    assert.ok(v1 > v0, 'the data version moved');
    await db
      .updateTable('posts')
      .set({ content_rating: 'sketchy' })
      .where(
        'id',
        'in',
        added.slice(0, 4).map((r) => r.id),
      )
      .execute();
    assert.deepEqual(await totals(), await actual(), 'after re-rating four at once');
    /** One like more on each added post, in one statement. */
    const likeEach = () =>
      db
        .updateTable('posts')
        .set((eb) => ({ like_count: eb('like_count', '+', 1) }))
        .where(
          'id',
          'in',
          added.map((r) => r.id),
        )
        .execute();
    await likeEach();
    const v2 = (await counters()).version;
    await likeEach();
    assert.equal((await counters()).version, v2, 'likes leave the data version alone');
    await db
      .deleteFrom('posts')
      .where(
        'id',
        'in',
        added.slice(2).map((r) => r.id),
      )
      .execute();
    assert.deepEqual(await totals(), await actual(), 'after deleting four at once');
  });
});

eachDatabase('one tag alone, page by page', (ctx) => {
  test('pages follow the date (then the id) both ways, at every offset, as the general query orders them', async () => {
    const db = ctx.database;
    const u = await createUser(db, { username: 'pager' });
    const base = ctx.clock.now() - 1_000_000;
    // Ties on the date, and ids that do not follow dates.
    const dates = [5, 1, 3, 3, 9, 0, 3, 7, 7, 2].map((d) => base + d * 1000);
    const ids: { id: number; at: number }[] = [];
    for (const at of dates) ids.push({ id: await createPost(db, { uploaderId: u, tags: ['paged', 'x'], createdAt: at }), at });
    const _tag = await db.selectFrom('tags').select(['id', 'post_count']).where('name', '=', 'paged').executeTakeFirstOrThrow();
    for (const sort of ['newest', 'oldest'] as const) {
      const sign = sort === 'newest' ? -1 : 1;
      const want = [...ids].sort((a, b) => sign * (a.at - b.at || a.id - b.id)).map((x) => x.id);
      for (const [offset, limit] of [
        [0, 4],
        [4, 4],
        [8, 4],
        [0, 10],
        [10, 3],
      ]) {
        for (const service of [postsService(ctx.app.deps), postsService(ctx.app.deps, 'sql')]) {
          const page = await listPage(service, { tag: ['paged'], sortBy: sort, offset, limit });
          assert.deepEqual(
            page.posts.map((p) => Number(p.id)),
            want.slice(offset, offset + limit),
            `${sort} ${offset}+${limit}`,
          );
        }
      }
    }
  });
});
