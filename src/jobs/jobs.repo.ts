import type { ExpressionBuilder } from 'kysely';
import type { Db } from '../db/engine.ts';
import type { DB, JobState } from '../db/types.ts';

export interface NewJob {
  kind: string;
  params: unknown;
  total: number;
  createdBy: number | null;
}

export async function insertJob(db: Db, job: NewJob, now: number): Promise<number> {
  const row = await db
    .insertInto('jobs')
    .values({ kind: job.kind, params: JSON.stringify(job.params ?? null), total: job.total, created_by: job.createdBy, created_at: now, updated_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Sets a job's total, for a kind that lists its items only once the job exists (job_posts). */
export async function setJobTotal(db: Db, id: number, total: number): Promise<void> {
  await db.updateTable('jobs').set({ total }).where('id', '=', id).execute();
}

export const jobById = (db: Db, id: number) => db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();

/** Queued, or running under a lease that has passed (its runner died). */
const claimable = (now: number) => (eb: ExpressionBuilder<DB, 'jobs'>) =>
  eb.or([eb('state', '=', 'queued'), eb.and([eb('state', '=', 'running'), eb('lease_until', '<', now)])]);

/**
 * Takes the oldest claimable job of one of `kinds` for `owner`. The UPDATE checks the job is
 * still claimable, so of several runners after the same job exactly one gets it (PostgreSQL
 * re-checks the row after waiting for another's update of it; SQLite runs one write at a time).
 */
export async function claimJob(db: Db, kinds: string[], owner: string, now: number, leaseMs: number) {
  if (kinds.length === 0) return undefined;
  const candidates = await db.selectFrom('jobs').select('id').where('kind', 'in', kinds).where(claimable(now)).orderBy('id').limit(4).execute();
  for (const { id } of candidates) {
    const taken = await db
      .updateTable('jobs')
      .set({ state: 'running', lease_owner: owner, lease_until: now + leaseMs, updated_at: now })
      .where('id', '=', id)
      .where(claimable(now))
      .executeTakeFirst();
    if (Number(taken.numUpdatedRows) === 1) return jobById(db, id);
  }
  return undefined;
}

/**
 * Moves the lease on, if `owner` still holds it; false when another runner has taken the job. A
 * step does this first, so on PostgreSQL it also holds the job's row until the step commits.
 */
export async function renewLease(db: Db, id: number, owner: string, now: number, leaseMs: number): Promise<boolean> {
  const r = await db
    .updateTable('jobs')
    .set({ lease_until: now + leaseMs, updated_at: now })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .where('state', '=', 'running')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** A step's progress; a finished job's total becomes what it did in all, and a lease ends with it. */
export async function saveStep(db: Db, id: number, step: { cursor: unknown; done: number; finished: boolean }, now: number): Promise<void> {
  await db
    .updateTable('jobs')
    .set((eb) => ({
      cursor: JSON.stringify(step.cursor ?? null),
      done: eb('done', '+', step.done),
      total: step.finished
        ? eb('done', '+', step.done)
        : eb
            .case()
            .when('total', '<', eb('done', '+', step.done))
            .then(eb('done', '+', step.done))
            .else(eb.ref('total'))
            .end(),
      state: step.finished ? 'done' : 'running',
      ...(step.finished ? { lease_owner: null, lease_until: null } : {}),
      updated_at: now,
    }))
    .where('id', '=', id)
    .execute();
}

/** Ends `owner`'s hold on a job: failed with `error`, or back in the queue (`queued`) when its runner stops. */
export async function letGo(
  db: Db,
  id: number,
  owner: string,
  state: Extract<JobState, 'queued' | 'failed'>,
  error: string | null,
  now: number,
): Promise<boolean> {
  const r = await db
    .updateTable('jobs')
    .set({ state, error, lease_owner: null, lease_until: null, updated_at: now })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .where('state', '=', 'running')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Jobs waiting or under way, by kind and state (GET /metrics): the queue's depth. */
export async function queueDepth(db: Db): Promise<{ kind: string; state: JobState; jobs: number }[]> {
  const rows = await db
    .selectFrom('jobs')
    .select(['kind', 'state', (eb) => eb.fn.countAll<number>().as('jobs')])
    .where('state', 'in', ['queued', 'running'])
    .groupBy(['kind', 'state'])
    .execute();
  return rows.map((r) => ({ kind: r.kind, state: r.state, jobs: Number(r.jobs) }));
}
