import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildApp, type App } from '../app.ts';
import { eachDatabase } from '../../test/helpers.ts';
import { register, type Account } from '../../test/auth-helpers.ts';
import { appNames, createMarksTable, createPosts, getJob, markingKind, marks, waitForJob } from '../../test/jobs.ts';
import { createJob } from './jobs.service.ts';
import { databaseUnavailable } from '../storage/unavailable.ts';

eachDatabase(
  'jobs: the runner',
  (ctx) => {
    let alice: Account;
    let lastPost = 0;
    const apps: App[] = [];
    before(async () => {
      await createMarksTable(ctx.database);
      alice = await register(ctx.app, 'alice');
    });
    after(async () => {
      for (const app of apps) await app.close();
    });

    /** An app on the test's database that runs jobs (ctx.app only answers requests), logging to `logs`. */
    async function runnerApp(name: string, jobs: { pollMs: number; leaseMs?: number }, logs?: PassThrough) {
      const config = logs ? { ...ctx.config, logLevel: 'info' as const } : ctx.config;
      const app = await buildApp(config, { database: ctx.database, clock: ctx.clock, jobs, logStream: logs });
      appNames.set(app.deps, name);
      apps.push(app);
      await app.ready();
      return app;
    }

    async function newPosts(n: number) {
      const after = lastPost;
      const ids = await createPosts(ctx.database, Number(alice.id), n, ctx.clock.now());
      lastPost = ids.at(-1)!;
      return { after, ids };
    }

    test('a job survives a restart: the app closed part-way, a new one resumes at the cursor and does each post once', async () => {
      let first: App | undefined;
      let stepsInFirst = 0;
      let closing: Promise<void> | undefined;
      const kind = markingKind('test-restart', {
        batch: 2,
        // The first app is closed during its second step: that step still commits, then the runner stops.
        during: ({ deps }) => {
          if (deps === first?.deps && ++stepsInFirst === 2) closing = first.close();
        },
      });
      const { after, ids } = await newPosts(7);
      first = await runnerApp('first', { pollMs: 10 });
      const job = await createJob(ctx.app.deps, kind, { label: 'restart', after }, Number(alice.id));
      while (!closing) await sleep(2);
      await closing;
      const stopped = await waitForJob(ctx.database, job.id, () => true);
      assert.deepEqual(
        { state: stopped.state, done: stopped.done, total: stopped.total, cursor: stopped.cursor, owner: stopped.lease_owner },
        { state: 'queued', done: 4, total: 7, cursor: String(ids[3]), owner: null },
        'back in the queue at once, with the progress of the two steps that committed',
      );
      assert.deepEqual((await getJob(ctx.app, job.id, alice.headers)).body, {
        id: job.id,
        kind: 'test-restart',
        state: 'queued',
        done: 4,
        total: 7,
        error: null,
      });

      await runnerApp('second', { pollMs: 10 });
      await waitForJob(ctx.database, job.id, (j) => j.state === 'done');
      assert.deepEqual((await getJob(ctx.app, job.id, alice.headers)).body, {
        id: job.id,
        kind: 'test-restart',
        state: 'done',
        done: 7,
        total: 7,
        error: null,
      });
      assert.deepEqual(await marks(ctx.database, 'restart'), [
        ...ids.slice(0, 4).map((post_id) => ({ post_id, app: 'first' })),
        ...ids.slice(4).map((post_id) => ({ post_id, app: 'second' })),
      ]);
      await apps.at(-1)!.close();
    });

    test('a job whose process died is taken over once its lease has passed, from its cursor', async () => {
      const kind = markingKind('test-orphan', { batch: 2 });
      const { after, ids } = await newPosts(7);
      const job = await createJob(ctx.app.deps, kind, { label: 'orphan', after }, Number(alice.id));
      // As a process killed after its first step leaves it.
      const leaseUntil = ctx.clock.now() + 30_000;
      await ctx.database
        .updateTable('jobs')
        .set({ state: 'running', lease_owner: 'gone-host:1:deadbeef', lease_until: leaseUntil, cursor: String(ids[1]), done: 2 })
        .where('id', '=', Number(job.id))
        .execute();
      const app = await runnerApp('taker', { pollMs: 5, leaseMs: 30_000 });
      await sleep(100);
      const held = await waitForJob(ctx.database, job.id, () => true);
      assert.deepEqual([held.state, held.lease_owner, held.done], ['running', 'gone-host:1:deadbeef', 2], 'not taken while its lease lasts');

      ctx.clock.t = leaseUntil + 1;
      await waitForJob(ctx.database, job.id, (j) => j.state === 'done');
      assert.deepEqual((await getJob(ctx.app, job.id, alice.headers)).body, { id: job.id, kind: 'test-orphan', state: 'done', done: 7, total: 7, error: null });
      assert.deepEqual(
        await marks(ctx.database, 'orphan'),
        ids.slice(2).map((post_id) => ({ post_id, app: 'taker' })),
      );
      await app.close();
    });

    test('a failing step fails its job with the error, rolled back, and logged; the runner goes on to the next job', async () => {
      const failing = markingKind('test-failing', {
        batch: 2,
        during: ({ cursor }) => {
          if (cursor !== null) throw new Error('tag 42 was deleted meanwhile');
        },
      });
      const counting = markingKind('test-after-failure', { batch: 2 });
      const logs = new PassThrough();
      let logged = '';
      logs.on('data', (d) => (logged += d));
      const { after } = await newPosts(5);
      const bad = await createJob(ctx.app.deps, failing, { label: 'failing', after }, Number(alice.id));
      const good = await createJob(ctx.app.deps, counting, { label: 'after-failure', after }, Number(alice.id));
      const app = await runnerApp('failing', { pollMs: 5 }, logs);
      await waitForJob(ctx.database, good.id, (j) => j.state === 'done');

      assert.deepEqual((await getJob(ctx.app, bad.id, alice.headers)).body, {
        id: bad.id,
        kind: 'test-failing',
        state: 'failed',
        done: 2,
        total: 5,
        error: 'tag 42 was deleted meanwhile',
      });
      assert.equal((await marks(ctx.database, 'failing')).length, 2, 'the failed step wrote nothing');
      assert.equal((await marks(ctx.database, 'after-failure')).length, 5);
      const errors = logged.split('\n').filter((l) => l.includes('"level":50'));
      assert.equal(errors.length, 1, logged);
      assert.match(errors[0], /jobs: a step failed; the job is marked failed/);
      assert.match(errors[0], /tag 42 was deleted meanwhile/);
      assert.match(errors[0], new RegExp(`"job":${bad.id}\\b`));
      await app.close();
    });

    test('a step that meets the database away is tried again once it is back: the job pauses, is not failed, and does each post once', async () => {
      let away = 3;
      const kind = markingKind('test-outage', {
        batch: 2,
        // The database "restarting" for the second step's first three tries (as the pool rethrows a refused connection).
        during: ({ cursor }) => {
          if (cursor !== null && away > 0) {
            away--;
            throw databaseUnavailable(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
          }
        },
      });
      const logs = new PassThrough();
      let logged = '';
      logs.on('data', (d) => (logged += d));
      const { after, ids } = await newPosts(5);
      const job = await createJob(ctx.app.deps, kind, { label: 'outage', after }, Number(alice.id));
      const app = await runnerApp('outage', { pollMs: 5 }, logs);
      await waitForJob(ctx.database, job.id, (j) => j.state === 'done' || j.state === 'failed');
      assert.deepEqual((await getJob(ctx.app, job.id, alice.headers)).body, { id: job.id, kind: 'test-outage', state: 'done', done: 5, total: 5, error: null });
      assert.equal(away, 0, 'the step met the outage three times');
      assert.deepEqual(
        (await marks(ctx.database, 'outage')).map((m) => m.post_id),
        ids,
        'each post marked once',
      );
      const lines = logged.split('\n').filter((l) => l.includes('jobs: '));
      assert.equal(lines.filter((l) => l.includes('"level":50')).length, 0, 'no error logged');
      assert.equal(lines.filter((l) => l.includes('jobs: paused, the database is unavailable')).length, 1, 'one warning for the outage');
      assert.equal(lines.filter((l) => l.includes('jobs: resumed')).length, 1, 'one line when it is back');
      await app.close();
    });

    test('two apps on one database run a job one step at a time, each post once, though every step outlives its lease', async () => {
      const leaseMs = 1000;
      // Every step moves the clock past the lease, so the other app may take the job over after any step.
      const kind = markingKind('test-shared', { batch: 1, during: () => ctx.clock.advance(leaseMs + 1) });
      const { after, ids } = await newPosts(40);
      await runnerApp('A', { pollMs: 1, leaseMs });
      await runnerApp('B', { pollMs: 1, leaseMs });
      const job = await createJob(ctx.app.deps, kind, { label: 'shared', after }, Number(alice.id));
      await waitForJob(ctx.database, job.id, (j) => j.state === 'done');
      const done = await marks(ctx.database, 'shared');
      assert.deepEqual(
        done.map((m) => m.post_id),
        ids,
        'each post marked once',
      );
      assert.deepEqual(new Set(done.map((m) => m.app)), new Set(['A', 'B']), 'the job changed hands');
      assert.deepEqual((await getJob(ctx.app, job.id, alice.headers)).body, {
        id: job.id,
        kind: 'test-shared',
        state: 'done',
        done: 40,
        total: 40,
        error: null,
      });
    });
  },
  {},
  { jobs: { run: false } },
);
