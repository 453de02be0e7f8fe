import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eachDatabase, type Ctx } from '../../../test/helpers.ts';
import { createKeyOk, register, setAccount, type Account } from '../../../test/auth-helpers.ts';
import { uploadTagged } from '../../../test/tag-helpers.ts';
import { assertDanbooruError, basic } from '../../../test/danbooru-helpers.ts';

const counts = (ctx: Ctx, query: string, headers: Record<string, string> = {}) => ctx.app.inject({ url: `/counts/posts.json?${query}`, headers });

eachDatabase('danbooru API: keys, errors', (ctx) => {
  let alice: Account;
  let key: string;
  before(async () => {
    alice = await register(ctx.app, 'alice');
    await setAccount(ctx.database, 'alice', { tier: 'basic' });
    key = (await createKeyOk(ctx.app, alice.headers)).key;
    await uploadTagged(ctx, alice, 'dan_cat');
    await uploadTagged(ctx, alice, 'dan_cat, dan_dog');
  });

  test('a search counts as /api/posts does, anonymous or with a key sent as HTTP Basic or login and api_key', async () => {
    for (const headers of [{}, basic('alice', key), basic('ALICE', key)]) {
      const res = await counts(ctx, 'tags=dan_cat', headers);
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), { counts: { posts: 2 } });
    }
    const res = await counts(ctx, `tags=dan_cat+-dan_dog&login=alice&api_key=${key}`);
    assert.deepEqual(res.json(), { counts: { posts: 1 } });
  });

  test("a bad key, or a key with another user name, is a 401 in Danbooru's shape", async () => {
    assertDanbooruError(await counts(ctx, 'tags=dan_cat', basic('alice', 'nope')), 401, 'SessionLoader::AuthenticationFailure');
    assertDanbooruError(await counts(ctx, 'tags=dan_cat', basic('bob', key)), 401, 'SessionLoader::AuthenticationFailure');
    assertDanbooruError(await counts(ctx, 'tags=dan_cat&login=alice&api_key=nope'), 401, 'SessionLoader::AuthenticationFailure');
    assertDanbooruError(await counts(ctx, 'tags=dan_cat&login=alice'), 401, 'SessionLoader::AuthenticationFailure');
    // Our own API keeps its shape and ignores Basic credentials.
    const ours = await ctx.app.inject({ url: '/api/posts?q=dan_cat', headers: basic('alice', 'nope') });
    assert.equal(ours.statusCode, 200);
  });

  test("a query our language refuses is a 422 in Danbooru's shape", async () => {
    assertDanbooruError(await counts(ctx, 'tags=(dan_cat'), 422, 'ArgumentError');
  });
});

eachDatabase(
  'danbooru API: rate limits',
  (ctx) => {
    test("Danbooru's API counts in the same window as /api/posts, with X-RateLimit-* and a Danbooru-shaped 429 with Retry-After", async () => {
      let last = await counts(ctx, 'tags=x');
      assert.equal(last.headers['x-ratelimit-limit'], '50');
      const remaining = Number(last.headers['x-ratelimit-remaining']);
      const ours = await ctx.app.inject({ url: '/api/posts?limit=1' });
      assert.equal(Number(ours.headers['x-ratelimit-remaining']), remaining - 1, 'one budget for both');
      for (let i = 0; i < 60 && last.statusCode !== 429; i++) last = await counts(ctx, 'tags=x');
      assertDanbooruError(last, 429, 'RateLimiter::RateLimitError');
      assert.ok(Number(last.headers['retry-after']) >= 1);
    });
  },
  { rateLimits: true },
);
