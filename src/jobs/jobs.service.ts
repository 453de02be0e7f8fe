import type { Deps, Viewer } from '../core/deps.ts';
import { forbidden, notFound } from '../core/errors.ts';
import { parseId } from '../core/ids.ts';
import { isModerator } from '../core/policy.ts';
import type { Tx } from '../db/engine.ts';
import type { JobRef } from './job-kind.ts';
import { kindOf } from './kinds.ts';
import { insertJob, jobById } from './jobs.repo.ts';
import type { Job } from './jobs.schemas.ts';
import { wakeJobRunners } from './wake.ts';

type JobRow = NonNullable<Awaited<ReturnType<typeof jobById>>>;

export const jobView = (row: JobRow): Job => ({
  id: String(row.id),
  kind: row.kind,
  state: row.state,
  done: Number(row.done),
  total: Number(row.total),
  error: row.error,
});

/**
 * Queues a job of `kind` over `params`, with its total counted now, and returns it as
 * GET /api/jobs/<id> shows it (routes answer 202 `{ job }`). Inside the caller's transaction
 * (`trx`) the job exists only if that commits, and runners find it at their next look
 * (runner.ts: within a second); otherwise this process's runner starts on it at once.
 */
export async function createJob<P>(deps: Deps, ref: JobRef<P>, params: P, createdBy: number | null, trx?: Tx): Promise<Job> {
  const db = trx ?? deps.db;
  const kind = kindOf(ref);
  const total = await kind.total(db, params);
  const id = await insertJob(db, { kind: kind.name, params, total, createdBy }, deps.clock.now());
  if (!trx) wakeJobRunners(deps.db);
  return jobView((await jobById(db, id))!);
}

/**
 * One job, for its creator or a moderator. Anyone else signed in gets 403 (a job's kind and
 * progress tell what its creator is doing; ids are sequential, so they are easily guessed).
 */
export async function getJob(deps: Deps, viewer: Viewer, rawId: string): Promise<Job> {
  const row = (await jobById(deps.db, parseId(rawId, 'Job'))) ?? notFound('Job', rawId);
  if (row.created_by !== viewer.id && !isModerator(viewer)) forbidden("Only the job's creator or a moderator may see it");
  return jobView(row);
}

/** One job by its id, for the command line (no viewer: whoever runs it has the database). */
export async function jobForCli(deps: Pick<Deps, 'db'>, id: number): Promise<Job | null> {
  const row = await jobById(deps.db, id);
  return row ? jobView(row) : null;
}

/** A job's steps run to the end at once, in the caller's transaction (a few items: no job needed). */
export async function runStepsNow<P>(trx: Tx, deps: Deps, ref: JobRef<P>, params: P): Promise<void> {
  const kind = kindOf(ref);
  let cursor: unknown = null;
  for (;;) {
    const step = await kind.step({ trx, deps, params, cursor, job: 0 });
    if (step.finished) return;
    cursor = step.cursor;
  }
}
