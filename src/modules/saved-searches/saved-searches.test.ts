import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eachDatabase, type Ctx } from '../../../test/helpers.ts';
import { createPost } from '../../../test/factories.ts';
import { register, type Account } from '../../../test/auth-helpers.ts';

async function until<T>(what: string, check: () => Promise<T | false>, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== false) return v;
    if (Date.now() > end) throw new Error(`waited ${ms} ms for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

eachDatabase({ title: 'saved searches', fleet: 'every instance follows the events into the feeds: each post must enter a feed once' }, (ctx: Ctx) => {
  let alice: Account;
  let bob: Account;
  const post = (tags: string[], rating: 'safe' | 'unsafe' = 'safe') =>
    createPost(ctx.database, { uploaderId: Number(bob.id), tags, rating, createdAt: ctx.clock.now() });
  const save = (who: Account, body: Record<string, unknown>) =>
    ctx.app.inject({ method: 'POST', url: '/api/saved-searches', headers: who.headers, payload: body });
  const feed = async (who: Account, query = '') => {
    const res = await ctx.app.inject({ url: `/api/saved-searches/feed${query}`, headers: who.headers });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as { posts: { id: string; tags: string[] }[]; unseen: number; total: number };
  };

  before(async () => {
    alice = await register(ctx.app, 'alice');
    bob = await register(ctx.app, 'bob');
  });

  test('the feed lists the new posts any saved search matches, newest first, and counts the unseen', async () => {
    await ctx.app.inject({ method: 'PUT', url: '/api/users/me/preferences', headers: alice.headers, payload: { blacklist: [], ratings: ['safe'] } });
    await post(['cat']); // before the searches: not in the feed
    const cats = await save(alice, { name: 'Cats', q: 'cat' });
    assert.equal(cats.statusCode, 201, cats.body);
    assert.deepEqual([cats.json().name, cats.json().q], ['Cats', 'cat']);
    assert.equal((await save(alice, { name: 'Sky or sea', q: 'sky or sea' })).statusCode, 201);
    const a = await post(['cat', 'sky']); // matches both: once in the feed
    await post(['dog']);
    const b = await post(['sea']);
    const hidden = await post(['cat'], 'unsafe'); // a rating Alice does not see
    await until('the feed', async () => (await feed(alice)).total >= 2);
    await new Promise((r) => setTimeout(r, 1500));
    const settled = await feed(alice);
    assert.deepEqual(
      settled.posts.map((p) => p.id),
      [b, a].map(String),
      `newest first, each once, and not ${hidden}`,
    );
    assert.equal(settled.unseen, 2);
    assert.deepEqual(await feed(alice, '?limit=0'), { posts: [], unseen: 2, total: 2 });
    assert.deepEqual(await feed(alice, '?offset=5'), { posts: [], unseen: 2, total: 2 }, 'a page past the end still counts');

    const seen = await ctx.app.inject({ method: 'POST', url: '/api/saved-searches/feed/seen', headers: alice.headers });
    assert.deepEqual(seen.json(), { unseen: 0 });
    const c = await post(['cat']);
    const after = await until('the next post', async () => {
      const f = await feed(alice);
      return f.total === 3 && f;
    });
    assert.equal(after.unseen, 1);
    assert.equal(after.posts[0].id, String(c));
    // A deleted post leaves the feed.
    await ctx.database.deleteFrom('posts').where('id', '=', c).execute();
    assert.deepEqual(await feed(alice, '?limit=0'), { posts: [], unseen: 0, total: 2 });
    // Bob saved nothing: his feed is empty.
    assert.deepEqual(await feed(bob), { posts: [], unseen: 0, total: 0 });
  });

  test('saved searches are their owner’s to list, change and delete; bad ones are refused', async () => {
    const made = (await save(bob, { name: ' Birds ', q: 'bird' })).json();
    assert.equal(made.name, 'Birds');
    const list = (await ctx.app.inject({ url: '/api/saved-searches', headers: bob.headers })).json().savedSearches;
    assert.deepEqual(
      list.map((s: { name: string }) => s.name),
      ['Birds'],
    );
    const changed = await ctx.app.inject({ method: 'PATCH', url: `/api/saved-searches/${made.id}`, headers: bob.headers, payload: { q: 'bird -crow' } });
    assert.deepEqual([changed.statusCode, changed.json().q], [200, 'bird -crow']);
    assert.equal(
      (await ctx.app.inject({ method: 'PATCH', url: `/api/saved-searches/${made.id}`, headers: alice.headers, payload: { name: 'x' } })).statusCode,
      404,
    );
    assert.equal((await ctx.app.inject({ method: 'DELETE', url: `/api/saved-searches/${made.id}`, headers: alice.headers })).statusCode, 404);
    for (const body of [{ name: 'x', q: '(bird' }, { name: 'x', q: 'bird order:likes' }, { name: '', q: 'bird' }, { name: 'x' }]) {
      assert.equal((await save(bob, body)).statusCode, 400, JSON.stringify(body));
    }
    assert.equal((await ctx.app.inject({ url: '/api/saved-searches/feed' })).statusCode, 401);
    assert.equal((await ctx.app.inject({ method: 'DELETE', url: `/api/saved-searches/${made.id}`, headers: bob.headers })).statusCode, 200);
    assert.deepEqual((await ctx.app.inject({ url: '/api/saved-searches', headers: bob.headers })).json().savedSearches, []);
  });
});
