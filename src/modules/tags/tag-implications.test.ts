import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eachDatabase, getJson, type Ctx } from '../../../test/helpers.ts';
import { assertBadField, assertError, ISO_MS } from '../../../test/auth-helpers.ts';
import { createPost } from '../../../test/factories.ts';
import { getJob, waitForJob } from '../../../test/jobs.ts';
import { addAlias, editTags, imply, listed, postTags, tagObject, unimply, uploadTagged, userAndModerator } from '../../../test/tag-helpers.ts';
import { BACKFILL_BATCH } from '../posts/implication-backfill.job.ts';

/** The pairs GET /api/tag-implications lists for a query string. */
async function pairs(ctx: Ctx, query = 'limit=200'): Promise<string[]> {
  const res = await getJson(ctx.app, `/api/tag-implications?${query}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.implications.map((x: { from: string; to: string }) => `${x.from}>${x.to}`);
}

/** postsCount of a tag (0 when it has no posts or does not exist). */
async function countOf(ctx: Ctx, name: string): Promise<number> {
  const res = await getJson(ctx.app, `/api/tags/${name}`);
  return res.status === 404 ? 0 : res.body.postsCount;
}

eachDatabase(
  { title: 'tag implications', fleet: "an implication's backfill runs as a job one instance claims; the others' writes and kept sets must follow" },
  (ctx) => {
    const who = userAndModerator(ctx);

    test('a moderator creates, lists (paged, by tag) and deletes implications; the tag object shows them', async () => {
      assertError(await imply(ctx, {}, 'oak', 'tree'), 401);
      assertError(await imply(ctx, who.alice.headers, 'oak', 'tree'), 403);
      const res = await imply(ctx, who.mod.headers, ' Oak ', 'tree');
      assert.equal(res.statusCode, 201, res.body);
      assert.match(res.json().createdAt, ISO_MS);
      assert.deepEqual({ ...(res.json() as object), createdAt: 'x' }, { from: 'oak', to: 'tree', createdAt: 'x', creator: { username: 'mod' } });
      ctx.clock.advance(1000);
      assert.equal((await imply(ctx, who.mod.headers, 'tree', 'plant')).statusCode, 201);
      ctx.clock.advance(1000);
      assert.equal((await imply(ctx, who.mod.headers, 'pine', 'tree')).statusCode, 201);

      assert.deepEqual(await pairs(ctx, 'tag=tree'), ['pine>tree', 'tree>plant', 'oak>tree'], 'newest first, either side');
      assert.deepEqual(await pairs(ctx, 'tag=oak'), ['oak>tree']);
      assert.deepEqual(await pairs(ctx, 'tag=nothing_here'), []);
      // What one tag implies, as a tag box asks it: a tag that does not exist is an empty list, not a 404.
      assert.deepEqual(await pairs(ctx, 'from=tree'), ['tree>plant']);
      assert.deepEqual(await pairs(ctx, 'from=plant'), []);
      assert.deepEqual(await pairs(ctx, 'from=nothing_here'), []);
      const page = await getJson(ctx.app, '/api/tag-implications?tag=tree&limit=2&page=2');
      assert.deepEqual(
        page.body.implications.map((x: { from: string }) => x.from),
        ['oak'],
      );
      assert.deepEqual(page.body.pagination, { total: 3, page: 2, perPage: 2, totalPages: 2 });
      assertBadField(await ctx.app.inject({ method: 'GET', url: '/api/tag-implications?limit=500' }), 'limit');

      const tree = await tagObject(ctx, 'tree');
      assert.deepEqual([tree.implies, tree.impliedBy], [['plant'], ['oak', 'pine']]);
      assert.deepEqual((await tagObject(ctx, 'oak')).implies, ['tree'], 'a tag the implication needed is created');

      assertError(await unimply(ctx, who.alice.headers, 'pine', 'tree'), 403);
      const del = await unimply(ctx, who.mod.headers, 'pine', 'tree');
      assert.equal(del.statusCode, 200, del.body);
      assertError(await unimply(ctx, who.mod.headers, 'pine', 'tree'), 404);
      assertError(await unimply(ctx, who.mod.headers, 'no_such', 'tree'), 404);
      assert.deepEqual(await pairs(ctx, 'tag=tree'), ['tree>plant', 'oak>tree']);
      assert.deepEqual((await tagObject(ctx, 'tree')).impliedBy, ['oak']);
    });

    test('uploads and edits get the implied tags, transitively; a created one takes the category of the tag implying it', async () => {
      await uploadTagged(ctx, who.alice, 'artist:ink_master');
      assert.equal((await imply(ctx, who.mod.headers, 'ink_master', 'ink_school')).statusCode, 202);
      assert.equal((await tagObject(ctx, 'ink_school')).category, 'artist');
      assert.equal((await imply(ctx, who.mod.headers, 'tabby', 'house_cat')).statusCode, 201);
      assert.equal((await imply(ctx, who.mod.headers, 'house_cat', 'feline')).statusCode, 201);
      assert.equal((await imply(ctx, who.mod.headers, 'feline', 'mammal')).statusCode, 201);
      assert.deepEqual(await listed(ctx, 'q=mammal'), { ids: [], total: 0 }, 'the search is warm before the writes');

      const up = await uploadTagged(ctx, who.alice, 'tabby, sofa');
      assert.deepEqual((await postTags(ctx, up)).tags, ['feline', 'house_cat', 'mammal', 'sofa', 'tabby']);
      const other = await uploadTagged(ctx, who.alice, 'sofa');
      const res = await editTags(ctx, who.alice, other, ['sofa', 'feline']);
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json().tags, ['feline', 'mammal', 'sofa']);
      assert.equal(await countOf(ctx, 'mammal'), 2);
      assert.deepEqual(await listed(ctx, 'q=mammal'), { ids: [other, up], total: 2 });
      assert.deepEqual(await listed(ctx, 'tag=house_cat'), { ids: [up], total: 1 });
    });

    test('an alias name on either side stands for its target, on create and on write', async () => {
      assert.equal((await addAlias(ctx, who.mod.headers, 'kitty_a', 'cat_a')).statusCode, 201);
      assert.equal((await addAlias(ctx, who.mod.headers, 'beast_a', 'animal_a')).statusCode, 201);
      const res = await imply(ctx, who.mod.headers, 'kitty_a', 'beast_a');
      assert.equal(res.statusCode, 201, res.body);
      assert.deepEqual([res.json().from, res.json().to], ['cat_a', 'animal_a']);
      const up = await uploadTagged(ctx, who.alice, 'kitty_a');
      assert.deepEqual((await postTags(ctx, up)).tags, ['animal_a', 'cat_a']);
      assert.deepEqual(await pairs(ctx, 'from=kitty_a'), ['cat_a>animal_a'], 'what an alias implies is what its target does');
      assertError(await imply(ctx, who.mod.headers, 'cat_a', 'beast_a'), 409);
      assert.equal((await unimply(ctx, who.mod.headers, 'kitty_a', 'beast_a')).statusCode, 200);
      assert.deepEqual(await pairs(ctx, 'tag=cat_a'), []);
    });

    test("an alias's retag applies the implications of its target", async () => {
      assert.equal((await imply(ctx, who.mod.headers, 'rt_cat', 'rt_animal')).statusCode, 201);
      const post = await uploadTagged(ctx, who.alice, 'rt_kitten');
      assert.equal((await addAlias(ctx, who.mod.headers, 'rt_kitten', 'rt_cat')).statusCode, 201);
      assert.deepEqual((await postTags(ctx, post)).tags, ['rt_animal', 'rt_cat']);
      assert.deepEqual(await listed(ctx, 'q=rt_animal'), { ids: [post], total: 1 });
    });

    test('a tag in an implication cannot become an alias (its implications would be lost or put it back): 400 naming it', async () => {
      assert.equal((await imply(ctx, who.mod.headers, 'al_kitten', 'al_animal')).statusCode, 201);
      for (const from of ['al_kitten', 'al_animal']) {
        const res = await addAlias(ctx, who.mod.headers, from, 'al_cat');
        assertBadField(res, 'from');
        assert.match(res.json().error, /al_kitten -> al_animal/);
      }
      assert.equal((await unimply(ctx, who.mod.headers, 'al_kitten', 'al_animal')).statusCode, 200);
      assert.equal((await addAlias(ctx, who.mod.headers, 'al_kitten', 'al_cat')).statusCode, 201);
    });

    test('self, cycles and duplicates are refused, naming the cycle; nothing is written', async () => {
      assert.equal((await imply(ctx, who.mod.headers, 'cy_a', 'cy_b')).statusCode, 201);
      assert.equal((await imply(ctx, who.mod.headers, 'cy_b', 'cy_c')).statusCode, 201);
      const cycle = await imply(ctx, who.mod.headers, 'cy_c', 'cy_a');
      assertBadField(cycle, 'to');
      assert.match(cycle.json().error, /cy_c -> cy_a -> cy_b -> cy_c/);
      const short = await imply(ctx, who.mod.headers, 'cy_b', 'cy_a');
      assert.match(short.json().error, /cy_b -> cy_a -> cy_b/);
      const self = await imply(ctx, who.mod.headers, 'cy_a', 'CY_A');
      assertBadField(self, 'to');
      assert.match(self.json().error, /cy_a -> cy_a/);
      assert.equal((await addAlias(ctx, who.mod.headers, 'cy_alias', 'cy_a')).statusCode, 201);
      assert.match((await imply(ctx, who.mod.headers, 'cy_alias', 'cy_a')).json().error, /cy_a -> cy_a/, 'an alias of itself is itself');
      assertError(await imply(ctx, who.mod.headers, 'cy_a', 'cy_b'), 409);
      assertBadField(await imply(ctx, who.mod.headers, '-bad', 'cy_a'), 'from');
      assertBadField(await imply(ctx, who.mod.headers, 'cy_new', 'a,b'), 'to');
      assertBadField(await ctx.app.inject({ method: 'POST', url: '/api/tag-implications', headers: who.mod.headers, payload: { from: 'x' } }), 'to');
      const refusedNew = await imply(ctx, who.mod.headers, 'cy_fresh', 'cy_fresh');
      assert.equal(refusedNew.statusCode, 400);
      assert.equal((await getJson(ctx.app, '/api/tags/cy_fresh')).status, 404, 'a refused implication creates no tag');
      assert.deepEqual(await pairs(ctx, 'tag=cy_a'), ['cy_a>cy_b']);
    });

    test('an edit cannot drop a tag that a tag it keeps implies (400 naming the implication); dropping both is fine', async () => {
      assert.equal((await imply(ctx, who.mod.headers, 'rm_cat', 'rm_animal')).statusCode, 201);
      assert.equal((await imply(ctx, who.mod.headers, 'rm_animal', 'rm_life')).statusCode, 201);
      const post = await uploadTagged(ctx, who.alice, 'rm_cat, rm_grass');
      const refused = await editTags(ctx, who.alice, post, ['rm_cat', 'rm_grass', 'rm_life']);
      assertBadField(refused, 'tags');
      assert.match(refused.json().error, /rm_animal is implied by rm_cat/);
      const deep = await editTags(ctx, who.alice, post, ['rm_cat', 'rm_animal']);
      assert.match(deep.json().error, /rm_life is implied by rm_animal/);
      const unchanged = await ctx.app.inject({ method: 'GET', url: `/api/posts/${post}` });
      assert.deepEqual(unchanged.json().tags, ['rm_animal', 'rm_cat', 'rm_grass', 'rm_life'], 'a refused edit writes nothing');

      const both = await editTags(ctx, who.alice, post, ['rm_grass', 'rm_life']);
      assert.equal(both.statusCode, 200, both.body);
      assert.deepEqual(both.json().tags, ['rm_grass', 'rm_life']);
      assert.equal(await countOf(ctx, 'rm_cat'), 0);
      const all = await editTags(ctx, who.alice, post, ['rm_grass']);
      assert.deepEqual(all.json().tags, ['rm_grass']);
      assert.equal(await countOf(ctx, 'rm_life'), 0);
    });

    test('existing posts are backfilled by a job (202): every post of `from` gets `to` and what it implies, counts and searches follow', async () => {
      assert.equal((await imply(ctx, who.mod.headers, 'bf_to', 'bf_more')).statusCode, 201);
      const n = BACKFILL_BATCH + 20;
      const uploaderId = Number(who.alice.id);
      const ids: number[] = [];
      for (let i = 0; i < n; i++) {
        // Every third post shares a time with its neighbours: the job's cursor must not skip or repeat them.
        const tags = i % 7 === 0 ? ['bf_from', 'bf_to', 'bf_more'] : i % 5 === 0 ? ['bf_from', 'bf_more'] : ['bf_from'];
        ids.push(await createPost(ctx.database, { uploaderId, createdAt: 1_700_000_000_000 + Math.floor(i / 3), tags: i % 11 === 0 ? ['bf_other'] : tags }));
      }
      const fromCount = await countOf(ctx, 'bf_from');
      const hadTo = await countOf(ctx, 'bf_to');
      const hadMore = await countOf(ctx, 'bf_more');
      // Warm the in-memory sets on the consequents: they must catch up from the job's writes.
      assert.equal((await listed(ctx, 'q=bf_to')).total, hadTo);
      assert.equal((await listed(ctx, 'tag=bf_more')).total, hadMore);

      const res = await imply(ctx, who.mod.headers, 'bf_from', 'bf_to');
      assert.equal(res.statusCode, 202, res.body);
      const { job, ...implication } = res.json();
      assert.deepEqual([implication.from, implication.to], ['bf_from', 'bf_to']);
      assert.deepEqual({ kind: job.kind, total: job.total, error: job.error }, { kind: 'tag-implication-backfill', total: fromCount, error: null });
      assert.ok(['queued', 'running'].includes(job.state));
      await waitForJob(ctx.database, job.id, (j) => j.state !== 'queued' && j.state !== 'running');
      const seen = await getJob(ctx.app, job.id, who.mod.headers);
      assert.deepEqual(seen.body, { ...job, state: 'done', done: fromCount, total: fromCount });
      assertError(await ctx.app.inject({ method: 'GET', url: `/api/jobs/${job.id}`, headers: who.alice.headers }), 403);

      assert.equal(await countOf(ctx, 'bf_to'), fromCount);
      assert.equal(await countOf(ctx, 'bf_more'), fromCount);
      const tagged = ids.filter((_, i) => i % 11 !== 0).map(String);
      const newestFirst = [...tagged].reverse();
      for (const q of ['q=bf_to', 'tag=bf_to', 'q=bf_more', 'q=bf_from bf_to bf_more']) {
        const got = await listed(ctx, `${q.replaceAll(' ', '%20')}&limit=100`);
        assert.equal(got.total, fromCount, q);
        assert.deepEqual(got.ids, newestFirst.slice(0, 100), q);
      }
      assert.deepEqual(await listed(ctx, 'q=bf_from%20-bf_to'), { ids: [], total: 0 });
      assert.deepEqual((await postTags(ctx, String(ids[1]))).tags, ['bf_from', 'bf_more', 'bf_to']);
      assert.deepEqual((await postTags(ctx, String(ids[0]))).tags, ['bf_other']);

      const del = await unimply(ctx, who.mod.headers, 'bf_from', 'bf_to');
      assert.equal(del.statusCode, 200, del.body);
      assert.equal(await countOf(ctx, 'bf_to'), fromCount, 'deleting an implication removes no tag');
      assert.equal((await listed(ctx, 'q=bf_to')).total, fromCount);
      const after = await uploadTagged(ctx, who.alice, 'bf_from');
      assert.deepEqual((await postTags(ctx, after)).tags, ['bf_from'], 'and it no longer applies');
    });

    test('an implication whose posts all have `to` already is a plain 201, with no job', async () => {
      await uploadTagged(ctx, who.alice, 'nj_from, nj_to');
      const res = await imply(ctx, who.mod.headers, 'nj_from', 'nj_to');
      assert.equal(res.statusCode, 201, res.body);
      assert.equal('job' in res.json(), false);
    });
  },
  {},
  { jobs: { pollMs: 10 } },
);
