import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { commandEnv, eachDatabase } from '../../test/helpers.ts';
import { register, type Account } from '../../test/auth-helpers.ts';
import { createMarksTable, createPosts, markingKind, waitForJob } from '../../test/jobs.ts';
import { createJob } from '../jobs/jobs.service.ts';
import { jobsCommand } from './jobs.ts';
import { main } from './main.ts';

/** Resolved once the command has shown its first progress line: the slow job waits for it, so the command sees it part-way. */
let shown: Promise<void> = Promise.resolve();
let showing = () => {};
const slow = markingKind('test-cli', {
  batch: 1,
  during: async () => {
    await shown;
    await sleep(20);
  },
});
const failing = markingKind('test-cli-failing', {
  batch: 2,
  during: () => {
    throw new Error('the tag was deleted meanwhile');
  },
});

eachDatabase(
  'cli: imageboard jobs show',
  (ctx) => {
    let alice: Account;
    let env: Record<string, string>;
    before(async () => {
      await createMarksTable(ctx.database);
      alice = await register(ctx.app, 'alice');
      env = await commandEnv(ctx);
    });

    async function run(args: string[]) {
      let out = '';
      let err = '';
      const onErr = (s: string) => {
        err += s;
        if (/\[[#.]+\]/.test(s)) showing();
      };
      const code = await jobsCommand(args, { env, out: { write: (s: string) => (out += s) }, err: { write: onErr } }, 10);
      return { code, out, err };
    }

    test('--wait shows a progress bar until the job is done, then its state', async () => {
      await createPosts(ctx.database, Number(alice.id), 6, ctx.clock.now());
      shown = new Promise((resolve) => (showing = resolve));
      const job = await createJob(ctx.app.deps, slow, { label: 'cli', after: 0 }, Number(alice.id));
      const r = await run(['show', job.id, '--wait']);
      assert.equal(r.code, 0, r.err);
      assert.equal(r.out, `job ${job.id} (test-cli): done, 6 of 6\n`);
      const bars = r.err.split('\n').filter((l) => l.startsWith(`job ${job.id}: test-cli`));
      assert.ok(bars.length >= 2, r.err);
      assert.match(bars[0], /\s[0-5]\/6 \(\d+%\) \[#*\.+\] /, 'part-way first');
      assert.match(bars.at(-1)!, /\s6\/6 \(100%\) \[#{20}\] /);

      // Without --wait: the state, once.
      const again = await run(['show', job.id]);
      assert.deepEqual([again.code, again.out], [0, `job ${job.id} (test-cli): done, 6 of 6\n`]);
      assert.doesNotMatch(again.err, /\[/);
    });

    test('a failed job is shown with its error, and exits 1', async () => {
      const job = await createJob(ctx.app.deps, failing, { label: 'cli-failing', after: 0 }, Number(alice.id));
      await waitForJob(ctx.database, job.id, (j) => j.state === 'failed');
      const r = await run(['show', job.id, '--wait']);
      assert.deepEqual([r.code, r.out], [1, `job ${job.id} (test-cli-failing): failed after 0 of 6: the tag was deleted meanwhile\n`]);
    });

    test('an unknown job exits 1; a malformed id or a wrong command exits 2 with the usage', async () => {
      const unknown = await run(['show', '999999']);
      assert.deepEqual([unknown.code, unknown.out], [1, '']);
      assert.match(unknown.err, /There is no job 999999/);
      const malformed = await run(['show', 'abc']);
      assert.equal(malformed.code, 2);
      assert.match(malformed.err, /'abc' is not a job id/);
      for (const args of [[], ['list'], ['show'], ['show', '1', '2']]) {
        const r = await run(args);
        assert.equal(r.code, 2, args.join(' '));
        assert.match(r.err, /jobs show <id> \[--wait\]/);
      }
    });
  },
  {},
  { jobs: { pollMs: 10 } },
);

test('the help lists jobs show', async () => {
  let out = '';
  const write = process.stdout.write;
  process.stdout.write = ((s: string) => {
    out += s;
    return true;
  }) as typeof process.stdout.write;
  try {
    assert.equal(await main(['--help']), 0);
  } finally {
    process.stdout.write = write;
  }
  assert.match(out, /jobs show <id> \[--wait\]\n\s+A background job's state and progress/);
});
