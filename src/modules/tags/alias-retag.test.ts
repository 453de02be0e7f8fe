import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eachDatabase, getJson } from '../../../test/helpers.ts';
import { createPost } from '../../../test/factories.ts';
import { getJob, runJobsUntilDone } from '../../../test/jobs.ts';
import { addAlias, listed, patchTag, postTags, tagObject, userAndModerator } from '../../../test/tag-helpers.ts';
import { RETAG_BATCH } from '../posts/posts.retag.ts';

// ctx.app runs no jobs: each test looks at the alias before its job has run, then runs it.
eachDatabase(
  'tag aliases: the retag job',
  (ctx) => {
    const who = userAndModerator(ctx);

    async function postsTagged(n: number, tags: string[]): Promise<number[]> {
      const ids: number[] = [];
      for (let i = 0; i < n; i++) ids.push(await createPost(ctx.database, { uploaderId: Number(who.alice.id), createdAt: ctx.clock.now() + i, tags }));
      return ids;
    }

    test('moves every post of `from` in batches; the counts move with the job; a search by either name finds them all, before and after it', async () => {
      const old = await postsTagged(RETAG_BATCH + 5, ['many_old']);
      const [both] = await postsTagged(1, ['many_old', 'many_new']);
      const res = await addAlias(ctx, who.mod.headers, 'many_old', 'many_new');
      assert.equal(res.statusCode, 201, res.body);
      const { id } = res.json().job;
      const queued = await getJob(ctx.app, id, who.mod.headers);
      assert.deepEqual(queued.body, { id, kind: 'alias-retag', state: 'queued', done: 0, total: RETAG_BATCH + 6, error: null });
      assert.equal((await tagObject(ctx, 'many_new')).postsCount, 1, 'the counts move as the posts do');
      const searches = [
        'q=many_old',
        'q=many_new',
        'tag=many_old',
        'tag=many_new',
        'search=many_old',
        'q=many_new -many_nothing',
        'q=many_new or many_nothing',
      ];
      const newest = (await listed(ctx, 'limit=1')).ids;
      for (const q of searches) {
        assert.deepEqual(await listed(ctx, `${q}&limit=1`), { ids: newest, total: RETAG_BATCH + 6 }, `${q} before the job has moved a post`);
      }
      assert.equal((await listed(ctx, 'q=-many_new&limit=1')).total, 0, 'nor is a post of either name left out of a negation');

      assert.deepEqual(await runJobsUntilDone(ctx, id, who.mod.headers), { ...queued.body, state: 'done', done: RETAG_BATCH + 6 });
      assert.equal((await tagObject(ctx, 'many_new')).postsCount, RETAG_BATCH + 6);
      assert.deepEqual((await postTags(ctx, String(both))).tags, ['many_new']);
      assert.deepEqual((await postTags(ctx, String(old.at(-1)))).tags, ['many_new']);
      for (const q of searches) assert.equal((await listed(ctx, `${q}&limit=1`)).total, RETAG_BATCH + 6, q);
    });

    test('a rename of a tag with many posts rewrites their tags in a job; twice renamed meanwhile, they end with the last name', async () => {
      const posts = await postsTagged(RETAG_BATCH + 3, ['big_first', 'big_other']);
      const res = await patchTag(ctx, who.mod.headers, 'big_first', { name: 'big_second' });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().name, 'big_second');
      const { id } = res.json().job;
      assert.deepEqual((await postTags(ctx, String(posts[0]))).tags, ['big_first', 'big_other'], 'not reached by the job yet');
      for (const q of ['q=big_first', 'q=big_second', 'tag=big_first']) assert.equal((await listed(ctx, `${q}&limit=1`)).total, RETAG_BATCH + 3, q);
      const again = await patchTag(ctx, who.mod.headers, 'big_second', { name: 'big_third' });
      assert.equal(again.statusCode, 200, again.body);
      assert.deepEqual(again.json().aliases, ['big_first', 'big_second']);
      for (const job of [id, again.json().job.id]) {
        assert.deepEqual(await runJobsUntilDone(ctx, job, who.mod.headers), {
          id: job,
          kind: 'tag-rename',
          state: 'done',
          done: RETAG_BATCH + 3,
          total: RETAG_BATCH + 3,
          error: null,
        });
      }
      for (const post of [posts[0], posts.at(-1)!]) assert.deepEqual((await postTags(ctx, String(post))).tags, ['big_other', 'big_third']);
      assert.equal((await listed(ctx, 'q=big_first&limit=1')).total, RETAG_BATCH + 3);
    });

    test('an alias deleted before its job has run ends the job: the posts not yet moved keep the name', async () => {
      const posts = await postsTagged(2, ['gone_old']);
      const res = await addAlias(ctx, who.mod.headers, 'gone_old', 'gone_new');
      assert.equal(res.statusCode, 201, res.body);
      const del = await ctx.app.inject({ method: 'DELETE', url: '/api/tag-aliases/gone_old', headers: who.mod.headers });
      assert.equal(del.statusCode, 200, del.body);
      const job = await runJobsUntilDone(ctx, res.json().job.id, who.mod.headers);
      assert.equal(job.done, 0);
      assert.deepEqual((await postTags(ctx, String(posts[0]))).tags, ['gone_old']);
      assert.equal((await listed(ctx, 'q=gone_old')).total, 2);
      assert.equal((await getJson(ctx.app, '/api/tags/gone_new')).body.postsCount, 0);
    });
  },
  // Every alias's posts move in the job here (none within the request).
  { aliasRetagNow: 0 },
  { jobs: { run: false } },
);
