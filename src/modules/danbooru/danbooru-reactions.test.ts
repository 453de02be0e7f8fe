import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eachDatabase, getJson, type Ctx } from '../../../test/helpers.ts';
import { createKeyOk, register, setAccount, type Account } from '../../../test/auth-helpers.ts';
import { uploadTagged } from '../../../test/tag-helpers.ts';
import { assertDanbooruError, basic, DANBOORU_TIME } from '../../../test/danbooru-helpers.ts';

const stats = async (ctx: Ctx, post: string) => (await getJson(ctx.app, `/api/posts/${post}`)).body.stats as { likes: number; favorites: number };

eachDatabase('danbooru API: favorites, votes and comments', (ctx) => {
  let alice: Account;
  let auth: Record<string, string>;
  let post: string;
  before(async () => {
    alice = await register(ctx.app, 'alice');
    await setAccount(ctx.database, 'alice', { tier: 'basic' });
    auth = basic('alice', (await createKeyOk(ctx.app, alice.headers)).key);
    post = await uploadTagged(ctx, alice, 'dan_fav');
  });

  test('POST /favorites.json (post_id in the query or a JSON body) and DELETE /favorites/<id>.json, seen by our API', async () => {
    const res = await ctx.app.inject({ method: 'POST', url: `/favorites.json?post_id=${post}`, headers: auth });
    assert.equal(res.statusCode, 201, res.body);
    assert.deepEqual(res.json(), { id: Number(post), post_id: Number(post), user_id: res.json().user_id });
    assert.equal(typeof res.json().user_id, 'number');
    assert.equal((await stats(ctx, post)).favorites, 1);
    const del = await ctx.app.inject({ method: 'DELETE', url: `/favorites/${post}.json`, headers: auth });
    assert.equal(del.statusCode, 204);
    assert.equal((await stats(ctx, post)).favorites, 0);
    const form = await ctx.app.inject({ method: 'POST', url: '/favorites.json', headers: auth, payload: { post_id: post } });
    assert.equal(form.statusCode, 201, form.body);
    assert.equal((await stats(ctx, post)).favorites, 1);
  });

  test('POST and DELETE /posts/<id>/votes.json are our like; -1 is a 422', async () => {
    const res = await ctx.app.inject({ method: 'POST', url: `/posts/${post}/votes.json?score=1`, headers: auth });
    assert.equal(res.statusCode, 200, res.body);
    const vote = res.json();
    assert.deepEqual(Object.keys(vote).sort(), ['created_at', 'id', 'post_id', 'score', 'user_id']);
    assert.equal(vote.post_id, Number(post));
    assert.equal(vote.score, 1);
    assert.match(vote.created_at, DANBOORU_TIME);
    assert.equal((await stats(ctx, post)).likes, 1);
    assertDanbooruError(await ctx.app.inject({ method: 'POST', url: `/posts/${post}/votes.json?score=-1`, headers: auth }), 422, 'ArgumentError');
    assert.equal((await stats(ctx, post)).likes, 1);
    assert.equal((await ctx.app.inject({ method: 'DELETE', url: `/posts/${post}/votes.json`, headers: auth })).statusCode, 204);
    assert.equal((await stats(ctx, post)).likes, 0);
  });

  test("anonymous writes are 401, a missing post 404, in Danbooru's shape", async () => {
    assertDanbooruError(await ctx.app.inject({ method: 'POST', url: `/favorites.json?post_id=${post}` }), 401, 'SessionLoader::AuthenticationFailure');
    assertDanbooruError(await ctx.app.inject({ method: 'POST', url: `/posts/${post}/votes.json?score=1` }), 401, 'SessionLoader::AuthenticationFailure');
    assertDanbooruError(await ctx.app.inject({ method: 'DELETE', url: `/favorites/${post}.json` }), 401, 'SessionLoader::AuthenticationFailure');
    assertDanbooruError(await ctx.app.inject({ method: 'POST', url: '/favorites.json?post_id=999999', headers: auth }), 404, 'ActiveRecord::RecordNotFound');
    assertDanbooruError(await ctx.app.inject({ method: 'POST', url: '/favorites.json', headers: auth }), 422, 'ArgumentError');
    assertDanbooruError(await ctx.app.inject({ method: 'POST', url: '/posts/999999/votes.json?score=1', headers: auth }), 404, 'ActiveRecord::RecordNotFound');
    assertDanbooruError(await ctx.app.inject({ method: 'DELETE', url: '/favorites/999999.json', headers: auth }), 404, 'ActiveRecord::RecordNotFound');
  });

  test("GET /comments.json?search[post_id]=N: the post's comments oldest first, in Danbooru's shape", async () => {
    for (const content of ['first!', 'second']) {
      const res = await ctx.app.inject({ method: 'POST', url: '/api/comments', headers: alice.headers, payload: { postId: post, content } });
      assert.equal(res.statusCode, 201, res.body);
    }
    const other = await uploadTagged(ctx, alice, 'dan_other');
    await ctx.app.inject({ method: 'POST', url: '/api/comments', headers: alice.headers, payload: { postId: other, content: 'elsewhere' } });
    const res = await ctx.app.inject({ url: `/comments.json?search[post_id]=${post}&group_by=comment` });
    assert.equal(res.statusCode, 200, res.body);
    const list = res.json();
    assert.deepEqual(
      list.map((c: { body: string }) => c.body),
      ['first!', 'second'],
    );
    const c = list[0];
    assert.deepEqual(Object.keys(c).sort(), [
      'body',
      'created_at',
      'creator_id',
      'creator_name',
      'do_not_bump_post',
      'id',
      'is_deleted',
      'is_sticky',
      'post_id',
      'score',
      'updated_at',
      'updater_id',
    ]);
    assert.equal(c.post_id, Number(post));
    assert.equal(c.creator_name, 'alice');
    assert.equal(c.score, 0);
    assert.equal(c.updater_id, c.creator_id);
    assert.match(c.created_at, DANBOORU_TIME);
    assert.deepEqual([c.do_not_bump_post, c.is_deleted, c.is_sticky], [false, false, false]);
    assert.equal((await ctx.app.inject({ url: `/comments.json?search[post_id]=${post}&limit=1&page=2` })).json()[0].body, 'second');
    assert.deepEqual((await ctx.app.inject({ url: '/comments.json?search[post_id]=999999' })).json(), []);
    assert.deepEqual((await ctx.app.inject({ url: '/comments.json?search[post_id]=abc' })).json(), []);
    assert.equal((await ctx.app.inject({ url: '/comments.json?limit=1' })).json()[0].body, 'elsewhere', 'without a post: the newest');
    assertDanbooruError(await ctx.app.inject({ url: '/comments.json?page=1001' }), 410, 'PaginationExtension::PaginationError');
  });
});

eachDatabase(
  'danbooru API: write rate limits',
  (ctx) => {
    test('POST /favorites.json and POST /posts/<id>/votes.json count in the windows of our PUT favorite and like', async () => {
      const alice = await register(ctx.app, 'alice');
      const post = await uploadTagged(ctx, alice, 'dan_limit');
      for (const [danbooru, ours] of [
        [`/favorites.json?post_id=${post}`, `/api/posts/${post}/favorite`],
        [`/posts/${post}/votes.json?score=1`, `/api/posts/${post}/like`],
      ]) {
        const first = await ctx.app.inject({ method: 'POST', url: danbooru, headers: alice.headers });
        assert.ok(first.statusCode < 300, first.body);
        const remaining = Number(first.headers['x-ratelimit-remaining']);
        const second = await ctx.app.inject({ method: 'PUT', url: ours, headers: alice.headers });
        assert.equal(Number(second.headers['x-ratelimit-remaining']), remaining - 1, 'one budget for both');
      }
    });
  },
  { rateLimits: true },
);
