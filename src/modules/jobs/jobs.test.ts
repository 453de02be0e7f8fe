import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { eachDatabase } from '../../../test/helpers.ts';
import { register, setAccount, type Account } from '../../../test/auth-helpers.ts';
import { createMarksTable, createPosts, getJob, markingKind, marks, waitForJob } from '../../../test/jobs.ts';
import { createJob } from '../../jobs/jobs.service.ts';

// Steps long enough that a client polling the job sees it part-way.
const counting = markingKind('test-counting', { batch: 2, during: () => sleep(15) });

eachDatabase(
  { title: 'jobs: GET /api/jobs/<id>', fleet: "a job is claimed by one instance's runner and watched through the others" },
  (ctx) => {
    let alice: Account;
    let bob: Account;
    let mod: Account;
    let lastPost = 0;
    before(async () => {
      await createMarksTable(ctx.database);
      alice = await register(ctx.app, 'alice');
      bob = await register(ctx.app, 'bob');
      mod = await register(ctx.app, 'mod');
      await setAccount(ctx.database, 'mod', { role: 'moderator' });
    });

    /** A job over `n` new posts, started by `by` (null: by the server). */
    async function jobOver(n: number, label: string, by: Account | null) {
      const after = lastPost;
      lastPost = (await createPosts(ctx.database, Number(alice.id), n, ctx.clock.now())).at(-1)!;
      return createJob(ctx.app.deps, counting, { label, after }, by && Number(by.id));
    }

    test('a job runs in the background; its creator watches done move up to total, then state done', async () => {
      const job = await jobOver(7, 'progress', alice);
      assert.deepEqual({ ...job, id: '' }, { id: '', kind: 'test-counting', state: 'queued', done: 0, total: 7, error: null });
      assert.match(job.id, /^[1-9]\d*$/);
      const seen = [];
      for (;;) {
        const res = await getJob(ctx.app, job.id, alice.headers);
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.deepEqual(Object.keys(res.body).sort(), ['done', 'error', 'id', 'kind', 'state', 'total']);
        seen.push(res.body);
        if (res.body.state === 'done' || res.body.state === 'failed') break;
        await sleep(3);
      }
      assert.deepEqual(seen.at(-1), { id: job.id, kind: 'test-counting', state: 'done', done: 7, total: 7, error: null });
      const dones = seen.map((j) => j.done);
      assert.deepEqual(
        dones,
        [...dones].sort((a, b) => a - b),
        'done never goes back',
      );
      assert.ok(
        seen.some((j) => j.state === 'running' && j.done > 0 && j.done < 7),
        `seen part-way: ${JSON.stringify(seen.map((j) => [j.state, j.done]))}`,
      );
      assert.equal((await marks(ctx.database, 'progress')).length, 7, 'every post once');
    });

    test('only its creator and moderators see a job: anyone else signed in gets 403, nobody signed in 401', async () => {
      const job = await jobOver(1, 'private', alice);
      assert.equal((await getJob(ctx.app, job.id, mod.headers)).status, 200);
      const other = await getJob(ctx.app, job.id, bob.headers);
      assert.equal(other.status, 403);
      assert.equal(other.body.status, 403);
      assert.match(other.body.error, /creator or a moderator/);
      const anonymous = await getJob(ctx.app, job.id, {});
      assert.equal(anonymous.status, 401);
      assert.equal(anonymous.body.status, 401);

      const servers = await jobOver(1, 'server', null);
      assert.equal((await getJob(ctx.app, servers.id, alice.headers)).status, 403, 'a job nobody started is for moderators');
      assert.equal((await getJob(ctx.app, servers.id, mod.headers)).status, 200);
    });

    test("a job made in the caller's transaction exists only if that commits, and then runs", async () => {
      const jobsNow = async () => (await ctx.database.selectFrom('jobs').select('id').execute()).length;
      const before = await jobsNow();
      await assert.rejects(
        ctx.database.transaction().execute(async (trx) => {
          await createJob(ctx.app.deps, counting, { label: 'rolled-back', after: lastPost }, Number(alice.id), trx);
          throw new Error('the implication was refused');
        }),
        /the implication was refused/,
      );
      assert.equal(await jobsNow(), before);
      const job = await ctx.database
        .transaction()
        .execute((trx) => createJob(ctx.app.deps, counting, { label: 'committed', after: lastPost - 2 }, Number(alice.id), trx));
      const done = await waitForJob(ctx.database, job.id, (j) => j.state === 'done');
      assert.deepEqual([done.done, done.total], [2, 2]);
      assert.equal((await marks(ctx.database, 'committed')).length, 2);
    });

    test('an unknown or malformed job id is 404', async () => {
      for (const id of ['999999', 'abc', '0', '-1']) {
        const res = await getJob(ctx.app, id, mod.headers);
        assert.equal(res.status, 404, id);
        assert.deepEqual(res.body, { error: `Job '${id}' not found`, status: 404 });
      }
    });
  },
  {},
  { jobs: { pollMs: 10 } },
);
