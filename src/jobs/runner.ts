import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { Deps } from '../core/deps.ts';
import type { JobKind, StepResult } from './job-kind.ts';
import { jobKindNamed, jobKindNames } from './kinds.ts';
import { claimJob, letGo, renewLease, saveStep } from './jobs.repo.ts';
import { onJobCreated } from './wake.ts';
import { unavailableOf } from '../storage/unavailable.ts';

/** How often an idle runner looks for a job. */
export const JOB_POLL_MS = 1000;
/** How long a runner's claim on a job lasts without a step: a job whose process died is taken over after this. */
export const JOB_LEASE_MS = 30_000;

export interface JobRunnerOptions {
  pollMs?: number;
  leaseMs?: number;
}

export interface JobRunner {
  /** This runner's name in jobs.lease_owner: host, process and a random part (two apps of one process differ). */
  owner: string;
  /** Finishes the step under way, puts its job back in the queue, and stops; resolves when it has. */
  stop(): Promise<void>;
}

/** The longest wait between two tries while the database (or another dependency) is away. */
const OUTAGE_WAIT_MAX_MS = 2000;

/** The step's job was taken over by another runner (this one's lease passed): its step was rolled back. */
class LeaseLost extends Error {}

const MAX_ERROR = 2000;
const messageOf = (err: unknown) => ((err instanceof Error ? err.message || err.name : String(err)) || 'failed').slice(0, MAX_ERROR);

/**
 * Runs background jobs, one at a time, step after step (job-kind.ts), until stopped. Every server
 * process runs one. It takes the oldest queued job, or a running one whose lease has passed, by a
 * conditional UPDATE (jobs.repo.ts), so with several processes or instances on one database a job
 * runs in one place at a time. Each step first moves the lease on, in the step's own transaction:
 * a runner that lost its job (it stalled past the lease and another took over) finds out there and
 * its step is rolled back, so no step is done twice. A step that throws fails its job, unless
 * what it needed was away (the database restarting, a full disk: core/unavailable.ts): then the
 * runner pauses and tries the same step again until it is back. Nothing a job does stops the server.
 */
export function startJobRunner(deps: Deps, log: FastifyBaseLogger, opts: JobRunnerOptions = {}): JobRunner {
  const pollMs = opts.pollMs ?? JOB_POLL_MS;
  const leaseMs = opts.leaseMs ?? JOB_LEASE_MS;
  // Within jobs.lease_owner's 128 characters, however long the host's name.
  const owner = `${os.hostname().slice(0, 100)}:${process.pid}:${randomUUID().slice(0, 8)}`;
  let stopping = false;
  let woken = false;
  let nudge: (() => void) | null = null;
  const wake = () => {
    woken = true;
    nudge?.();
  };
  const unsubscribe = onJobCreated(deps.db, wake);

  const idle = (ms = pollMs) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        nudge = null;
        woken = false;
        resolve();
      };
      const timer = setTimeout(done, ms);
      // Never what keeps a process (or a test) alive.
      timer.unref();
      nudge = done;
      if (woken || stopping) done();
    });

  // While a dependency is away: one warning, then tries further apart (up to OUTAGE_WAIT_MAX_MS), and one line when it is back.
  let pausedWait = 0;
  const pause = async (what: string) => {
    if (pausedWait === 0) log.warn(`jobs: paused, the ${what} is unavailable; resuming when it is back`);
    pausedWait = Math.min(Math.max(pollMs / 4, pausedWait * 2), OUTAGE_WAIT_MAX_MS);
    await idle(pausedWait);
  };
  const resumed = () => {
    if (pausedWait === 0) return;
    pausedWait = 0;
    log.info('jobs: resumed');
  };

  const step = (id: number, kind: JobKind, params: unknown, cursor: unknown): Promise<StepResult<unknown>> =>
    deps.db.transaction().execute(async (trx) => {
      if (!(await renewLease(trx, id, owner, deps.clock.now(), leaseMs))) throw new LeaseLost();
      const result = await kind.step({ trx, job: id, deps, params, cursor });
      await saveStep(trx, id, result, deps.clock.now());
      return result;
    });

  /** Takes one job and works on it until it ends or the runner stops; false when there was none. */
  const runOne = async (): Promise<boolean> => {
    const job = await claimJob(deps.db, jobKindNames(), owner, deps.clock.now(), leaseMs);
    resumed();
    if (!job) return false;
    const kind = jobKindNamed(job.kind)!;
    const about = { job: job.id, kind: job.kind };
    log.info({ ...about, done: Number(job.done), total: Number(job.total) }, job.cursor === null ? 'jobs: starting' : 'jobs: resuming where it stopped');
    const params: unknown = JSON.parse(job.params);
    let cursor: unknown = job.cursor === null ? null : JSON.parse(job.cursor);
    const started = performance.now();
    const ended = (failed: boolean) => deps.metrics?.jobEnded(job.kind, failed, (performance.now() - started) / 1000);
    while (!stopping) {
      try {
        const result = await step(job.id, kind, params, cursor);
        resumed();
        if (result.finished) {
          log.info(about, 'jobs: done');
          ended(false);
          return true;
        }
        cursor = result.cursor;
      } catch (err) {
        if (err instanceof LeaseLost) {
          log.warn(about, 'jobs: another process took this job over (this one held it past its lease); leaving it');
          return true;
        }
        const away = unavailableOf(err);
        if (away) {
          // The step was rolled back: the same step again, from the cursor last saved.
          await pause(away.dependency);
          continue;
        }
        log.error({ ...about, err }, 'jobs: a step failed; the job is marked failed');
        await letGo(deps.db, job.id, owner, 'failed', messageOf(err), deps.clock.now());
        ended(true);
        return true;
      }
      await nextTurn();
    }
    // Stopping: back in the queue at once, for the next start or another process, without waiting out the lease.
    await letGo(deps.db, job.id, owner, 'queued', null, deps.clock.now());
    log.info(about, 'jobs: stopped; the job waits in the queue');
    return true;
  };

  const loop = (async () => {
    while (!stopping) {
      let worked = false;
      try {
        worked = await runOne();
      } catch (err) {
        const away = unavailableOf(err);
        if (away) {
          await pause(away.dependency);
          continue;
        }
        log.error({ err }, 'jobs: looking for or saving a job failed; trying again shortly');
      }
      if (!worked) await idle();
    }
  })();

  return {
    owner,
    stop: async () => {
      stopping = true;
      unsubscribe();
      nudge?.();
      await loop;
    },
  };
}
