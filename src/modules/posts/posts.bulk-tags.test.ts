import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eachDatabase, getJson, type Ctx } from '../../../test/helpers.ts';
import { assertBadField, assertError } from '../../../test/auth-helpers.ts';
import { createPosts, getJob, runJobsUntilDone } from '../../../test/jobs.ts';
import { RETAG_BATCH } from './posts.retag.ts';
import { addAlias, editTags, listed, postTags, tagObject, uploadTagged, userAndModerator } from '../../../test/tag-helpers.ts';

type Headers = Record<string, string>;

const bulk = (ctx: Ctx, headers: Headers, payload: Record<string, unknown>) =>
  ctx.app.inject({ method: 'POST', url: '/api/posts/bulk-tags', headers, payload });

async function jobCount(ctx: Ctx): Promise<number> {
  const row = await ctx.database
    .selectFrom('jobs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

// ctx.app runs no jobs: a test decides when a job runs (runJobs), so it can change posts between the request and the job.
eachDatabase(
  'posts: bulk tag edits',
  (ctx) => {
    const who = userAndModerator(ctx);

    const runJobs = (id: string) => runJobsUntilDone(ctx, id, who.mod.headers);

    /** Starts a bulk edit as the moderator (asserted 202) and returns its job. */
    async function started(payload: Record<string, unknown>) {
      const res = await bulk(ctx, who.mod.headers, payload);
      assert.equal(res.statusCode, 202, res.body);
      return res.json().job;
    }

    test('adds and removes tags on the posts q matches and no others; counts move; the search finds the result right after the job', async () => {
      const p1 = await uploadTagged(ctx, who.alice, 'bk_a, bk_old');
      const p2 = await uploadTagged(ctx, who.alice, 'bk_a');
      const p3 = await uploadTagged(ctx, who.alice, 'bk_b, bk_old');
      // Warm the in-memory search: the job's writes (by another process) must reach it.
      assert.deepEqual(await listed(ctx, 'q=bk_old'), { ids: [p3, p1], total: 2 });
      assert.deepEqual(await listed(ctx, 'q=bk_new'), { ids: [], total: 0 });
      const job = await started({ q: 'bk_a', add: ['bk_new', 'artist:bk_artist'], remove: ['bk_old'] });
      assert.deepEqual({ ...job, id: 'x' }, { id: 'x', kind: 'bulk-tags', state: 'queued', done: 0, total: 2, error: null });
      assert.deepEqual((await getJob(ctx.app, job.id, who.mod.headers)).body, job, 'GET /api/jobs/<id> shows it waiting');
      assert.deepEqual((await postTags(ctx, p1)).tags, ['bk_a', 'bk_old'], 'nothing is edited before the job runs');

      assert.deepEqual(await runJobs(job.id), { ...job, state: 'done', done: 2, total: 2 });
      assert.deepEqual((await postTags(ctx, p1)).tags, ['bk_a', 'bk_artist', 'bk_new']);
      assert.deepEqual((await postTags(ctx, p2)).tags, ['bk_a', 'bk_artist', 'bk_new']);
      assert.deepEqual((await postTags(ctx, p3)).tags, ['bk_b', 'bk_old'], 'a post the query does not match is untouched');
      assert.equal((await tagObject(ctx, 'bk_artist')).category, 'artist', 'a prefix in add gives a new tag its category');
      assert.equal((await tagObject(ctx, 'bk_new')).postsCount, 2);
      assert.equal((await tagObject(ctx, 'bk_old')).postsCount, 1);
      assert.deepEqual(await listed(ctx, 'q=bk_new'), { ids: [p2, p1], total: 2 });
      assert.deepEqual(await listed(ctx, 'q=bk_old'), { ids: [p3], total: 1 });
      assert.deepEqual(await listed(ctx, 'q=bk_artist -bk_old'), { ids: [p2, p1], total: 2 });
    });

    test('the posts are those q matched at the time of the request: one that stops matching is still edited, one that starts is not', async () => {
      const stays = await uploadTagged(ctx, who.alice, 'rt_x');
      const leaves = await uploadTagged(ctx, who.alice, 'rt_x');
      const joins = await uploadTagged(ctx, who.alice, 'rt_y');
      const job = await started({ q: 'rt_x', add: ['rt_done'] });
      assert.equal(job.total, 2);
      assert.equal((await editTags(ctx, who.alice, leaves, ['rt_z'])).statusCode, 200);
      assert.equal((await editTags(ctx, who.alice, joins, ['rt_x', 'rt_y'])).statusCode, 200);
      assert.deepEqual(await runJobs(job.id), { ...job, state: 'done', done: 2, total: 2 });
      assert.deepEqual((await postTags(ctx, stays)).tags, ['rt_done', 'rt_x']);
      assert.deepEqual((await postTags(ctx, leaves)).tags, ['rt_done', 'rt_z'], 'the edit made meanwhile is kept, and the job adds to it');
      assert.deepEqual((await postTags(ctx, joins)).tags, ['rt_x', 'rt_y']);
      assert.deepEqual(await listed(ctx, 'q=rt_done'), { ids: [leaves, stays], total: 2 });
    });

    test('aliases are read as their targets in add, remove and q', async () => {
      assert.equal((await addAlias(ctx, who.mod.headers, 'al_kitty', 'al_cat')).statusCode, 201);
      const r1 = await uploadTagged(ctx, who.alice, 'al_cat, al_fur');
      const r2 = await uploadTagged(ctx, who.alice, 'al_dog, al_fur');
      const added = await started({ q: 'al_fur', add: ['al_kitty'], remove: ['al_fur'] });
      await runJobs(added.id);
      assert.deepEqual((await postTags(ctx, r1)).tags, ['al_cat']);
      assert.deepEqual((await postTags(ctx, r2)).tags, ['al_cat', 'al_dog']);
      assert.equal((await tagObject(ctx, 'al_cat')).postsCount, 2);
      assert.equal((await getJson(ctx.app, '/api/tags/al_fur')).body.postsCount, 0);
      assert.deepEqual(await listed(ctx, 'q=al_kitty'), { ids: [r2, r1], total: 2 });

      const removed = await started({ q: 'al_kitty al_dog', remove: ['AL_KITTY'] });
      assert.equal(removed.total, 1);
      await runJobs(removed.id);
      assert.deepEqual((await postTags(ctx, r2)).tags, ['al_dog']);
      assert.deepEqual((await postTags(ctx, r1)).tags, ['al_cat']);
      assert.equal((await tagObject(ctx, 'al_cat')).postsCount, 1);
    });

    test('a job over more posts than a step takes goes in batches and edits every post once; its list of posts is gone after', async () => {
      const last = Number((await listed(ctx, 'limit=1')).ids[0] ?? 0);
      const ids = await createPosts(ctx.database, Number(who.alice.id), RETAG_BATCH + 5, ctx.clock.now());
      const job = await started({ q: `id:>${last}`, add: ['batched'] });
      assert.equal(job.total, RETAG_BATCH + 5);
      assert.deepEqual(await runJobs(job.id), { ...job, state: 'done', done: RETAG_BATCH + 5, total: RETAG_BATCH + 5 });
      assert.equal((await tagObject(ctx, 'batched')).postsCount, RETAG_BATCH + 5);
      assert.equal((await listed(ctx, 'q=batched&limit=1')).total, RETAG_BATCH + 5);
      assert.deepEqual((await postTags(ctx, String(ids.at(-1)))).tags, ['batched']);
      const left = await ctx.database.selectFrom('job_posts').select('post_id').where('job_id', '=', Number(job.id)).execute();
      assert.deepEqual(left, []);
    });

    test('a query that matches no post gives a job done with total 0', async () => {
      const job = await started({ q: 'no_such_tag_anywhere', add: ['never_added'] });
      assert.deepEqual([job.state, job.done, job.total], ['queued', 0, 0]);
      assert.deepEqual(await runJobs(job.id), { ...job, state: 'done' });
      assert.equal((await getJson(ctx.app, '/api/tags/never_added')).status, 404, 'no tag is made for no post');
    });

    test('bad input is a 400 naming the field, a non-moderator gets 403, and no job is made', async () => {
      await uploadTagged(ctx, who.alice, 'bad_input_post');
      const before = await jobCount(ctx);
      assertBadField(await bulk(ctx, who.mod.headers, { q: 'bad_input_post', add: ['same'], remove: ['Same'] }), 'remove');
      assert.equal((await addAlias(ctx, who.mod.headers, 'bi_alias', 'bi_target')).statusCode, 201);
      const aliased = await bulk(ctx, who.mod.headers, { q: 'bad_input_post', add: ['bi_alias'], remove: ['bi_target'] });
      assertBadField(aliased, 'remove');
      assert.match(aliased.json().error, /bi_target/);
      const empty = await bulk(ctx, who.mod.headers, { q: 'bad_input_post', add: [], remove: [] });
      assertBadField(empty, 'add');
      assertBadField(empty, 'remove');
      assertBadField(await bulk(ctx, who.mod.headers, { q: 'bad_input_post' }), 'add');
      assertBadField(await bulk(ctx, who.mod.headers, { q: 'bad_input_post', add: ['-bad'] }), 'add');
      assertBadField(await bulk(ctx, who.mod.headers, { q: 'bad_input_post', remove: ['a,b'] }), 'remove');
      assertBadField(await bulk(ctx, who.mod.headers, { add: ['x'] }), 'q');
      const syntax = await bulk(ctx, who.mod.headers, { q: 'cat (dog', add: ['x'] });
      assertBadField(syntax, 'q');
      assert.equal(typeof syntax.json().details[0].position, 'number');
      assertError(await bulk(ctx, who.alice.headers, { q: 'bad_input_post', add: ['x'] }), 403);
      assertError(await bulk(ctx, {}, { q: 'bad_input_post', add: ['x'] }), 401);
      assert.equal(await jobCount(ctx), before);
      assert.deepEqual((await listed(ctx, 'q=bad_input_post')).total, 1);
    });

    test('only its creator and moderators see a bulk job', async () => {
      const job = await started({ q: 'nothing_for_this', add: ['y'] });
      assert.equal((await getJob(ctx.app, job.id, who.mod.headers)).status, 200);
      assert.equal((await getJob(ctx.app, job.id, who.alice.headers)).status, 403);
      await runJobs(job.id);
    });
  },
  {},
  { jobs: { run: false } },
);
