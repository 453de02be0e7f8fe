import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eachDatabase, getJson, type Ctx } from '../../../test/helpers.ts';
import { assertBadField, assertError, ISO_MS } from '../../../test/auth-helpers.ts';
import { mulberry } from '../../../test/prng.ts';
import { userAndModerator, addAlias, addAliasMoved, editTags, listed, postTags, tagObject, uploadTagged } from '../../../test/tag-helpers.ts';

/** postsCount of a tag in GET /api/tags, or null when it is not listed (no posts). */
async function listedCount(ctx: Ctx, name: string): Promise<number | null> {
  const res = await getJson(ctx.app, `/api/tags?search=${name}&limit=200`);
  return res.body.tags.find((t: { name: string }) => t.name === name)?.postsCount ?? null;
}

eachDatabase({ title: 'tag aliases', fleet: "a retag job one instance claims moves posts the others' kept sets follow" }, (ctx) => {
  const who = userAndModerator(ctx);

  test('creating an alias moves the posts of `from` at once (a post with both just loses it); the answer already finds them under `to`; counts and searches follow', async () => {
    const a = await uploadTagged(ctx, who.alice, 'kitten, fluffy');
    const b = await uploadTagged(ctx, who.alice, 'kitten, cat');
    const c = await uploadTagged(ctx, who.alice, 'cat');
    // Warm the in-memory search on both names first: the alias must not be answered from stale sets.
    assert.deepEqual(await listed(ctx, 'q=kitten'), { ids: [b, a], total: 2 });
    assert.deepEqual(await listed(ctx, 'q=cat'), { ids: [c, b], total: 2 });
    const res = await addAlias(ctx, who.mod.headers, ' Kitten ', 'cat');
    assert.equal(res.statusCode, 201, res.body);
    const body = res.json();
    assert.match(body.createdAt, ISO_MS);
    // Exactly the contract's object: the two posts moved within the request, no job.
    assert.deepEqual({ ...body, createdAt: 'x' }, { from: 'kitten', to: 'cat', createdAt: 'x', creator: { username: 'mod' } });
    assert.deepEqual((await postTags(ctx, a)).tags, ['cat', 'fluffy']);
    assert.deepEqual((await postTags(ctx, b)).tagDetails, [{ name: 'cat', category: 'general', postsCount: 3 }]);
    assert.equal(await listedCount(ctx, 'cat'), 3);
    assert.equal(await listedCount(ctx, 'kitten'), null, 'kitten has no posts left');
    for (const q of ['q=cat', 'q=kitten', 'tag=kitten', 'search=kitten', 'tag=cat']) assert.deepEqual(await listed(ctx, q), { ids: [c, b, a], total: 3 }, q);
    assert.deepEqual(await listed(ctx, 'q=kitten -fluffy'), { ids: [c, b], total: 2 });
    assert.deepEqual((await tagObject(ctx, 'cat')).aliases, ['kitten']);
  });

  test('an alias with no posts to move answers without a job', async () => {
    const res = await addAlias(ctx, who.mod.headers, 'unused_name', 'unused_target');
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().job, undefined);
  });

  test('an alias on a few posts moves them within its request (no job); counts move, and a search by either name gives them', async () => {
    const many: string[] = [];
    for (let i = 0; i < 5; i++) many.push(await uploadTagged(ctx, who.alice, `batch_old, batch_${i}`));
    const res = await addAlias(ctx, who.mod.headers, 'batch_old', 'batch_new');
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().job, undefined);
    for (const [i, id] of many.entries()) assert.deepEqual((await postTags(ctx, id)).tags, [`batch_${i}`, 'batch_new'].sort());
    assert.equal(await listedCount(ctx, 'batch_new'), 5);
    assert.equal(await listedCount(ctx, 'batch_old'), null);
    assert.deepEqual(await listed(ctx, 'q=batch_old'), await listed(ctx, 'q=batch_new'));
    assert.equal((await listed(ctx, 'q=batch_old')).total, 5);
  });

  test('every write path reads an alias as its target: upload and edit (with a category prefix too)', async () => {
    assert.equal((await addAlias(ctx, who.mod.headers, 'doggo', 'dog')).statusCode, 201);
    const up = await uploadTagged(ctx, who.alice, 'doggo, artist:doggo');
    assert.deepEqual((await postTags(ctx, up)).tagDetails, [{ name: 'dog', category: 'general', postsCount: 1 }]);
    const res = await editTags(ctx, who.alice, up, ['doggo', 'dog', 'park']);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json().tags, ['dog', 'park']);
    assert.equal(await listedCount(ctx, 'dog'), 1);
    assert.equal(await listedCount(ctx, 'doggo'), null);
  });

  test('a missing target is created in the category of `from`, which keeps its row without posts', async () => {
    await uploadTagged(ctx, who.alice, 'artist:painter_old');
    await addAliasMoved(ctx, who.mod.headers, 'painter_old', 'painter_new');
    const tag = await tagObject(ctx, 'painter_new');
    assert.deepEqual([tag.category, tag.postsCount, tag.aliases], ['artist', 1, ['painter_old']]);
  });

  test('chains and cycles are 400 naming the chain; itself is 400; an alias twice is 409; nothing is written', async () => {
    assert.equal((await addAlias(ctx, who.mod.headers, 'kitty_b', 'cat_b')).statusCode, 201);
    const toAlias = await addAlias(ctx, who.mod.headers, 'kitty_c', 'kitty_b');
    assertBadField(toAlias, 'to');
    assert.match(toAlias.json().error, /kitty_c -> kitty_b -> cat_b/);
    const fromTarget = await addAlias(ctx, who.mod.headers, 'cat_b', 'feline_b');
    assertBadField(fromTarget, 'from');
    assert.match(fromTarget.json().error, /kitty_b -> cat_b -> feline_b/);
    const cycle = await addAlias(ctx, who.mod.headers, 'cat_b', 'kitty_b');
    assert.equal(cycle.statusCode, 400);
    assert.match(
      cycle.json().error,
      /cat_b -> kitty_b -> cat_b: a cycle: 'kitty_b' is already an alias of 'cat_b'; to turn it around, remove that alias first/,
    );
    assert.doesNotMatch(cycle.json().error, /alias 'cat_b' to 'cat_b'/, 'never suggests aliasing a tag to itself');
    const self = await addAlias(ctx, who.mod.headers, 'same_b', 'Same_B');
    assertBadField(self, 'to');
    assert.match(self.json().error, /same_b -> same_b/);
    assertError(await addAlias(ctx, who.mod.headers, 'kitty_b', 'other_b'), 409);
    assertBadField(await addAlias(ctx, who.mod.headers, '-bad', 'cat_b'), 'from');
    assertBadField(await addAlias(ctx, who.mod.headers, 'fine_b', 'a,b'), 'to');
    assertBadField(await ctx.app.inject({ method: 'POST', url: '/api/tag-aliases', headers: who.mod.headers, payload: { from: 'x' } }), 'to');
    const all = await getJson(ctx.app, '/api/tag-aliases?limit=200');
    assert.deepEqual(
      all.body.aliases.filter((x: { from: string }) => x.from.endsWith('_b')).map((x: { from: string; to: string }) => [x.from, x.to]),
      [['kitty_b', 'cat_b']],
    );
    const missing = await getJson(ctx.app, '/api/tags/feline_b');
    assert.equal(missing.status, 404, 'a refused alias creates no tag');
  });

  test('only moderators create and delete aliases', async () => {
    await uploadTagged(ctx, who.alice, 'puppy_m');
    assertError(await addAlias(ctx, {}, 'puppy_m', 'dog_m'), 401);
    assertError(await addAlias(ctx, who.alice.headers, 'puppy_m', 'dog_m'), 403);
    assert.equal((await addAlias(ctx, who.mod.headers, 'puppy_m', 'dog_m')).statusCode, 201);
    assertError(await ctx.app.inject({ method: 'DELETE', url: '/api/tag-aliases/puppy_m', headers: who.alice.headers }), 403);
    assert.equal((await tagObject(ctx, 'puppy_m')).name, 'dog_m');
  });

  test('the list is paged, newest first; deleting an alias touches no post and frees the name', async () => {
    for (const [i, name] of ['p1', 'p2', 'p3'].entries()) {
      ctx.clock.advance(1000 + i);
      assert.equal((await addAlias(ctx, who.mod.headers, `page_${name}`, 'page_target')).statusCode, 201);
    }
    const first = await getJson(ctx.app, '/api/tag-aliases?limit=2');
    assert.equal(first.status, 200);
    assert.deepEqual(
      first.body.aliases.map((x: { from: string }) => x.from),
      ['page_p3', 'page_p2'],
    );
    assert.equal(first.body.pagination.perPage, 2);
    const total = first.body.pagination.total;
    assert.equal(first.body.pagination.totalPages, Math.ceil(total / 2));
    assertBadField(await ctx.app.inject({ method: 'GET', url: '/api/tag-aliases?limit=500' }), 'limit');

    const post = await uploadTagged(ctx, who.alice, 'page_p1');
    assert.deepEqual((await postTags(ctx, post)).tags, ['page_target']);
    const del = await ctx.app.inject({ method: 'DELETE', url: '/api/tag-aliases/page_p1', headers: who.mod.headers });
    assert.equal(del.statusCode, 200, del.body);
    assert.equal(typeof del.json().message, 'string');
    assertError(await ctx.app.inject({ method: 'DELETE', url: '/api/tag-aliases/page_p1', headers: who.mod.headers }), 404);
    assert.deepEqual((await postTags(ctx, post)).tags, ['page_target'], 'the post keeps the tag it was given');
    assert.deepEqual(await listed(ctx, 'q=page_p1'), { ids: [], total: 0 });
    const again = await uploadTagged(ctx, who.alice, 'page_p1');
    assert.deepEqual((await postTags(ctx, again)).tags, ['page_p1']);
    assert.equal((await getJson(ctx.app, '/api/tag-aliases?limit=200')).body.pagination.total, total - 1);
  });

  test('property: a search by an alias name gives the page and total of its target, on q=, tag= and search=', async () => {
    const rand = mulberry(22);
    const words = ['prop_a', 'prop_b', 'prop_c', 'prop_d', 'prop_e'];
    for (let i = 0; i < 24; i++) {
      const tags = words.filter(() => rand() < 0.4);
      await uploadTagged(ctx, who.alice, [...tags, 'prop_all'].join(','));
    }
    const pairs: [string, string][] = [
      ['prop_a', 'prop_b'],
      ['prop_x', 'prop_c'],
      ['prop_d', 'prop_new'],
    ];
    for (const [from, to] of pairs) await addAliasMoved(ctx, who.mod.headers, from, to);
    for (const [from, to] of pairs) {
      for (const [byAlias, byTarget] of [
        [`q=${from}`, `q=${to}`],
        [`q=${from} -prop_e`, `q=${to} -prop_e`],
        [`q=${from} or prop_c`, `q=${to} or prop_c`],
        [`tag=${from}&tag=prop_all`, `tag=${to}&tag=prop_all`],
        [`search=${from}`, `search=${to}`],
        [`q=prop_all&tag=${from}&limit=5&offset=5`, `q=prop_all&tag=${to}&limit=5&offset=5`],
      ]) {
        assert.deepEqual(await listed(ctx, encodeURI(byAlias)), await listed(ctx, encodeURI(byTarget)), `${byAlias} vs ${byTarget}`);
      }
    }
  });
});
