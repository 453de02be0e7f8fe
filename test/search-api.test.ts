// GET /api/posts?q=: errors at their position, limits and the settings that raise them,
// wildcard expansion, the cursor, and the time budget.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { sql } from 'kysely';
import { eachDatabase, getJson } from './helpers.ts';
import { addComment, addFavorite, addLike, createPool, createPost, createUser } from './factories.ts';

const list = (q: string, more = '') => `/api/posts?q=${encodeURIComponent(q)}${more}`;

eachDatabase('search language: errors, limits, wildcards, cursor', (ctx) => {
  let ids: number[];
  before(async () => {
    const u = await createUser(ctx.database, { username: 'searcher' });
    ids = [];
    for (let i = 0; i < 6; i++)
      ids.push(await createPost(ctx.database, { uploaderId: u, createdAt: Date.parse('2026-01-01') + i * 1000, tags: ['cat', `tone_${i}`], likeCount: i }));
    // 105 tags that start alike: a wildcard over them is capped at the 100 most used.
    for (let i = 0; i < 105; i++)
      await createPost(ctx.database, {
        uploaderId: u,
        createdAt: Date.parse('2025-01-01') + i,
        tags: Array.from({ length: 1 + (i % 3) }, (_, k) => `wide_${i + k}`),
      });
  });

  test('a syntax error is a 400 naming q, with the character offset of what is wrong', async () => {
    for (const [q, position, words] of [
      ['cat (dog', 4, /parenthesis is not closed/],
      ['cat or', 4, /or/],
      ['likes:>x', 6, /likes: 'x' is not a whole number/],
      ['rating:nice', 7, /rating/],
      ['date:2026-02-30', 5, /date/],
      ['cat order:best', 10, /order/],
      ['md5:abc', 4, /32 hexadecimal/],
      ['likes:9..3', 6, /empty/],
    ] as const) {
      const res = await getJson(ctx.app, list(q));
      assert.equal(res.status, 400, `${q}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.status, 400);
      assert.equal(res.body.details.length, 1);
      const [d] = res.body.details;
      assert.equal(d.field, 'q');
      assert.equal(d.position, position, `${q}: ${d.message}`);
      assert.match(d.message, words);
    }
  });

  test("Danbooru's score: and order:score mean likes; an unknown name gets the nearest known one suggested", async () => {
    const ids_ = async (q: string) => ((await getJson(ctx.app, list(q))).body.posts as { id: string }[]).map((p) => p.id);
    assert.deepEqual(await ids_('cat order:score'), await ids_('cat order:likes'));
    assert.deepEqual(await ids_('cat order:score_asc'), await ids_('cat order:likes_asc'));
    assert.deepEqual(await ids_('cat score:>=4'), await ids_('cat likes:>=4'));
    assert.equal((await ids_('cat score:>=4')).length, 2);
    for (const [url, hint] of [
      [list('cat order:lieks'), /did you mean order:likes\?/],
      [list('rating:saef'), /did you mean safe\?/],
      [list('has:comment'), /did you mean has:comments\?/],
      ['/api/posts?sortby=most_liked', /unknown query parameter 'sortby'; did you mean 'sortBy'\?/],
      ['/api/posts?limt=5', /did you mean 'limit'\?/],
      ['/posts.json?tags=ratng:safe', /Unknown metatag or tag: 'ratng' \(in 'ratng:safe'\); did you mean rating\?/],
    ] as const) {
      const res = await getJson(ctx.app, url);
      assert.ok(res.status === 400 || res.status === 422, `${url}: ${res.status}`);
      assert.match(JSON.stringify(res.body), hint, url);
    }
    assert.doesNotMatch(JSON.stringify((await getJson(ctx.app, list('cat order:banana'))).body), /did you mean/, 'nothing near: no suggestion');
  });

  test('at most 1,000 characters and 20 terms (order: not counted)', async () => {
    const terms = (n: number) => Array.from({ length: n }, (_, i) => `t${i}`).join(' ');
    assert.equal((await getJson(ctx.app, list(`${terms(20)} order:likes`))).status, 200);
    const many = await getJson(ctx.app, list(terms(21)));
    assert.equal(many.status, 400);
    assert.match(many.body.details[0].message, /20 terms/);
    assert.equal(many.body.details[0].position, terms(20).length + 1);
    const long = await getJson(ctx.app, list(`cat ${'x'.repeat(997)}`));
    assert.equal(long.status, 400);
    assert.match(long.body.details[0].message, /1000 characters/);
  });

  test('sortBy together with order: is a 400; either alone orders the list', async () => {
    const both = await getJson(ctx.app, list('cat order:likes', '&sortBy=most_liked'));
    assert.equal(both.status, 400);
    assert.equal(both.body.details[0].field, 'q');
    const byOrder = await getJson(ctx.app, list('cat order:likes_asc'));
    assert.deepEqual(
      byOrder.body.posts.map((p: { id: string }) => Number(p.id)),
      ids,
    );
    const bySort = await getJson(ctx.app, list('cat', '&sortBy=most_liked'));
    assert.deepEqual(
      bySort.body.posts.map((p: { id: string }) => Number(p.id)),
      [...ids].reverse(),
    );
  });

  test('a wildcard over more than 100 tags uses the 100 most used and says so', async () => {
    const res = await getJson(ctx.app, list('wide_*', '&limit=1'));
    assert.equal(res.status, 200);
    const [w] = res.body.wildcards;
    assert.equal(w.pattern, 'wide_*');
    assert.equal(w.capped, true);
    assert.equal(w.tags.length, 100);
    // The most used first: wide_2 is on 3 posts (wide_0 on 1).
    assert.ok(w.tags.indexOf('wide_2') < w.tags.indexOf('wide_0') || !w.tags.includes('wide_0'));
    const few = await getJson(ctx.app, list('tone_* -tone_1'));
    assert.deepEqual(few.body.wildcards[0], { pattern: 'tone_*', tags: ['tone_0', 'tone_1', 'tone_2', 'tone_3', 'tone_4', 'tone_5'], capped: false });
    assert.equal(few.body.totalPosts, 5);
    const plain = await getJson(ctx.app, list('cat'));
    assert.equal(plain.body.wildcards, undefined);
  });

  test('the newest order gives a cursor that pages on; other orders give none', async () => {
    const first = await getJson(ctx.app, list('cat', '&limit=4'));
    assert.equal(first.body.nextCursor, String(ids[2]));
    const next = await getJson(ctx.app, list('cat', `&limit=4&before=${first.body.nextCursor}`));
    assert.deepEqual(
      next.body.posts.map((p: { id: string }) => Number(p.id)),
      [ids[1], ids[0]],
    );
    assert.equal((await getJson(ctx.app, list('cat order:likes', '&limit=4'))).body.nextCursor, null);
    assert.equal((await getJson(ctx.app, list('cat order:likes', `&before=${ids[3]}`))).status, 400);
    // The cursor with sortBy is the old parameters' error, named as it always was.
    const sorted = await getJson(ctx.app, list('cat', `&sortBy=oldest&before=${ids[3]}`));
    assert.equal(sorted.status, 400);
    assert.equal(sorted.body.details[0].field, 'before');
  });

  test('a post opened from a search has the posts of that search around it', async () => {
    const q = encodeURIComponent('cat order:likes_asc');
    const ids_ = (posts: { id: string }[]) => posts.map((p) => Number(p.id));
    const at = await getJson(ctx.app, `/api/posts/${ids[2]}?neighbours=2&at=2&q=${q}`);
    assert.equal(at.status, 200);
    assert.deepEqual(ids_(at.body.neighbours.before), [ids[1], ids[0]]);
    assert.deepEqual(ids_(at.body.neighbours.after), [ids[3], ids[4]]);
    // Without its place, a search with its own order has no upload-order fallback (sortBy would clash with order:).
    const lost = await getJson(ctx.app, `/api/posts/${ids[2]}?neighbours=2&q=${q}`);
    assert.deepEqual(lost.body.neighbours, { before: [], after: [] });
  });

  test('a post written by another process is found at once, by the sets and by SQL', async () => {
    const u = await createUser(ctx.database, { username: 'elsewhere' });
    // In id order: these posts' dates do not follow their ids, and the date order would go to SQL, which reads the rows as they are.
    for (const q of ['cat -tone_3 order:id', 'cat likes:>=0 order:id', 'user:elsewhere order:id']) {
      const before = (await getJson(ctx.app, list(q))).body.totalPosts;
      // Straight into the database, as another instance would: this process's indexes have not seen it.
      const id = await createPost(ctx.database, { uploaderId: u, createdAt: Date.parse('2026-02-01'), tags: ['cat'] });
      const after = await getJson(ctx.app, list(q));
      assert.equal(after.body.totalPosts, before + 1, q);
      assert.equal(after.body.posts[0].id, String(id), q);
    }
    // A wildcard's expansion is kept per data version: a new tag it matches is in the next answer.
    assert.equal((await getJson(ctx.app, list('tone_z* order:id'))).body.totalPosts, 0);
    const id = await createPost(ctx.database, { uploaderId: u, createdAt: Date.parse('2026-02-02'), tags: ['tone_zz'] });
    const widened = await getJson(ctx.app, list('tone_z* order:id'));
    assert.deepEqual(widened.body.wildcards[0].tags, ['tone_zz']);
    assert.equal(widened.body.posts[0].id, String(id));
  });
});

eachDatabase({ title: 'search language: a rating edited by another process', fleet: "every instance's rating sets follow the change log" }, (ctx) => {
  test('the rating sets catch up from the change log', async () => {
    const u = await createUser(ctx.database, { username: 'rater' });
    const ids: number[] = [];
    for (const rating of ['safe', 'sketchy', 'unsafe', 'safe'] as const)
      ids.push(await createPost(ctx.database, { uploaderId: u, createdAt: 1_000 + ids.length, rating, tags: ['cat'] }));
    const rated = async (r: string) => (await getJson(ctx.app, list(`cat rating:${r} order:id`))).body.posts.map((p: { id: string }) => Number(p.id));
    assert.deepEqual(await rated('unsafe'), [ids[2]]);
    // Straight into the database, as another instance would: only the log tells this process which post.
    await ctx.database.updateTable('posts').set({ content_rating: 'unsafe', updated_at: 5_000 }).where('id', '=', ids[0]).execute();
    assert.deepEqual(await rated('unsafe'), [ids[2], ids[0]]);
    assert.deepEqual(await rated('safe'), [ids[3]]);
  });
});

eachDatabase('search language: favourites and pools, which move no data version', (ctx) => {
  test('a total asked again follows a new favourite and a post added to a pool at once', async () => {
    const u = await createUser(ctx.database, { username: 'keeper' });
    const ids: number[] = [];
    for (let i = 0; i < 6; i++) ids.push(await createPost(ctx.database, { uploaderId: u, createdAt: 1_000 + i, tags: ['cat'] }));
    await addFavorite(ctx.database, u, ids[1], 2_000);
    const pool = await createPool(ctx.database, { creatorId: u, name: 'kept', postIds: [ids[2]], at: 2_000 });
    const found = async (q: string) => {
      const body = (await getJson(ctx.app, list(q))).body;
      return { ids: body.posts.map((p: { id: string }) => Number(p.id)), total: body.totalPosts };
    };
    for (const q of ['cat fav:keeper', 'cat -fav:keeper']) await found(q);
    await found(`cat pool:${pool}`);
    await addFavorite(ctx.database, u, ids[4], 3_000);
    await ctx.database.insertInto('pool_posts').values({ pool_id: pool, post_id: ids[5], position: 2, added_at: 3_000 }).execute();
    assert.deepEqual(await found('cat fav:keeper'), { ids: [ids[4], ids[1]], total: 2 });
    assert.deepEqual(await found('cat -fav:keeper'), { ids: [ids[5], ids[3], ids[2], ids[0]], total: 4 });
    assert.deepEqual(await found(`cat pool:${pool}`), { ids: [ids[5], ids[2]], total: 2 });
  });
});

eachDatabase({ title: 'search language: likes, favourites and comments moved by another process', fleet: 'kept counts follow the count log' }, (ctx) => {
  test('the counts kept in memory catch up from their log, and from a full read when far behind', async () => {
    const u = await createUser(ctx.database, { username: 'fan' });
    const ids: number[] = [];
    for (let i = 0; i < 4; i++) ids.push(await createPost(ctx.database, { uploaderId: u, createdAt: 1_000 + i, tags: ['cat'], likeCount: i }));
    const ranked = async (q: string) => {
      const body = (await getJson(ctx.app, list(q))).body;
      return { ids: body.posts.map((p: { id: string }) => Number(p.id)), total: body.totalPosts };
    };
    assert.deepEqual(await ranked('cat likes:>=2 order:likes'), { ids: [ids[3], ids[2]], total: 2 });
    // Straight into the database, as another instance would: only the count log tells this process.
    for (let k = 0; k < 3; k++) await addLike(ctx.database, await createUser(ctx.database, { username: `liker${k}` }), ids[0], 2_000);
    assert.deepEqual(await ranked('cat likes:>=2 order:likes'), { ids: [ids[3], ids[0], ids[2]], total: 3 });
    await addFavorite(ctx.database, u, ids[1], 2_000);
    await addComment(ctx.database, { postId: ids[2], userId: u, createdAt: 2_000 });
    assert.deepEqual(await ranked('cat favs:1 order:likes'), { ids: [ids[1]], total: 1 });
    assert.deepEqual(await ranked('cat has:comments order:comments'), { ids: [ids[2]], total: 1 });
    // A process further behind than the log keeps reads every post again.
    await ctx.database.updateTable('posts').set({ like_count: 50 }).where('id', '=', ids[1]).execute();
    // As if 20,000 more moves had come and the log had dropped this one.
    await ctx.database.updateTable('counters').set({ value: sql`value + 20000` }).where('name', '=', 'counts').execute();
    await ctx.database.deleteFrom('count_changes').execute();
    // 3 likes each: the newer first.
    assert.deepEqual(await ranked('cat likes:>=3 order:likes'), { ids: [ids[1], ids[3], ids[0]], total: 3 });
  });
});

eachDatabase(
  'search language: settings raise the limits',
  (ctx) => {
    test('SEARCH_MAX_TERMS and SEARCH_MAX_LENGTH are read', async () => {
      const q = Array.from({ length: 30 }, (_, i) => `t${i}`).join(' ');
      assert.equal((await getJson(ctx.app, list(q))).status, 200);
      assert.equal((await getJson(ctx.app, list(`${q} t30 t31`))).status, 400);
    });
  },
  { search: { limits: { maxLength: 2000, maxTerms: 30, maxDepth: 10 }, budgetMs: 2000 } },
);

eachDatabase(
  'search language: the time budget',
  (ctx) => {
    before(async () => {
      const u = await createUser(ctx.database, { username: 'slow' });
      for (let i = 0; i < 3; i++) await createPost(ctx.database, { uploaderId: u, createdAt: 1000 + i, tags: ['a', 'b'] });
      // Many posts at once, so a query that reads them all takes far more than a millisecond.
      const copy = (i: number) => sql`INSERT INTO posts (uploader_id, title, description, content_rating, media_type, mime, file_size, width, height, duration,
        is_animated, sha256, phash, file_path, thumb_path, preview_path, like_count, comment_count, favorite_count, created_at, updated_at, tag_string)
        SELECT p.uploader_id, p.title, p.description, p.content_rating, p.media_type, p.mime, p.file_size, p.width, p.height, p.duration,
        p.is_animated, substr(p.sha256, 1, 40) || '-' || ${i} || '-' || p.id, p.phash, p.file_path, p.thumb_path, p.preview_path, p.like_count, p.comment_count, p.favorite_count, p.created_at, p.updated_at, p.tag_string
        FROM posts p`;
      // Doubled 15 times: 98,304 posts.
      for (let i = 0; i < 15; i++) await copy(i).execute(ctx.database);
    });

    test('a query over the budget ends with 503, Retry-After and the JSON error, and the next one is answered', async () => {
      // Unbudgeted, this takes about 280 ms on SQLite and 900 ms on PostgreSQL here, against a
      // budget of 50 ms; the query after it is a key lookup, well inside the budget even on a
      // loaded machine.
      const slow = await ctx.app.inject({
        method: 'GET',
        url: list('a or b or title:zzz or fav:slow or pool:any or comments:3..9 or tagcount:>5 or -likes:>=0 order:random', '&offset=200000'),
      });
      assert.equal(slow.statusCode, 503, slow.body);
      assert.ok(Number(slow.headers['retry-after']) > 0);
      const body = slow.json();
      assert.equal(body.status, 503);
      assert.match(body.error, /time budget/);
      const quick = await getJson(ctx.app, list('id:1'));
      assert.equal(quick.status, 200);
      assert.equal(quick.body.totalPosts, 1);
    });
  },
  { search: { limits: { maxLength: 1000, maxTerms: 20, maxDepth: 10 }, budgetMs: 50 } },
);
