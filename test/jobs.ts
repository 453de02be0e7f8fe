import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { buildApp, type App } from '../src/app.ts';
import type { Ctx } from './helpers.ts';
import type { Deps } from '../src/core/deps.ts';
import type { Database } from '../src/db/database.ts';
import type { JobKind } from '../src/jobs/job-kind.ts';
import { registerJobKind } from '../src/jobs/kinds.ts';
import { createPost } from './factories.ts';

/**
 * Test kinds of job: each marks the posts it goes over, `batch` a step in id order, in a table of
 * the tests' own (job_marks). The marks are written in the step's transaction, so they are exactly
 * what the job's saved progress says it did: a post marked twice was done twice.
 */
export interface MarkingOptions {
  batch: number;
  /** Called inside each step before its marks are written (to pause, move the clock, or throw). */
  during?: (step: { deps: Deps; cursor: number | null; label: string }) => Promise<void> | void;
}

export interface MarkParams {
  label: string;
  /** The job goes over the posts after this id. */
  after: number;
}

export function markingKind(name: string, options: MarkingOptions): JobKind<MarkParams, number> {
  // A suite runs once per engine: its second pass gets the kind the first registered, with its own options.
  const known = defined.get(name);
  if (known) {
    known.opts = options;
    return known.kind;
  }
  const entry = { opts: options } as { kind: JobKind<MarkParams, number>; opts: MarkingOptions };
  const kind: JobKind<MarkParams, number> = (entry.kind = {
    name,
    total: async (db, params) =>
      Number(
        (
          await db
            .selectFrom('posts')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('id', '>', params.after)
            .executeTakeFirstOrThrow()
        ).n,
      ),
    step: async ({ trx, deps, params, cursor }) => {
      await entry.opts.during?.({ deps, cursor, label: params.label });
      const rows = await trx
        .selectFrom('posts')
        .select('id')
        .where('id', '>', cursor ?? params.after)
        .orderBy('id')
        .limit(entry.opts.batch)
        .execute();
      for (const { id } of rows) {
        await sql`INSERT INTO job_marks (label, post_id, app) VALUES (${params.label}, ${id}, ${appNames.get(deps) ?? '?'})`.execute(trx);
      }
      return { cursor: rows.at(-1)?.id ?? cursor ?? params.after, done: rows.length, finished: rows.length < entry.opts.batch };
    },
  });
  registerJobKind(kind);
  defined.set(name, entry);
  return kind;
}

const defined = new Map<string, { kind: JobKind<MarkParams, number>; opts: MarkingOptions }>();

/** Names of apps by their deps, so a mark says which app's runner wrote it. */
export const appNames = new WeakMap<Deps, string>();

export async function createMarksTable(db: Database): Promise<void> {
  await sql`CREATE TABLE job_marks (label varchar(32) NOT NULL, post_id integer NOT NULL, app varchar(8) NOT NULL)`.execute(db);
}

/** The posts a job of `label` marked, in order of id, once per mark. */
export async function marks(db: Database, label: string): Promise<{ post_id: number; app: string }[]> {
  const { rows } = await sql<{ post_id: number; app: string }>`SELECT post_id, app FROM job_marks WHERE label = ${label} ORDER BY post_id, app`.execute(db);
  return rows.map((r) => ({ post_id: Number(r.post_id), app: r.app }));
}

export async function createPosts(db: Database, uploaderId: number, n: number, at: number): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < n; i++) ids.push(await createPost(db, { uploaderId, createdAt: at + i, title: `post ${i}` }));
  return ids;
}

/** The job as GET /api/jobs/<id> shows it to `headers`. */
export async function getJob(app: App, id: string, headers: Record<string, string>) {
  const res = await app.inject({ method: 'GET', url: `/api/jobs/${id}`, headers });
  return { status: res.statusCode, body: res.json() };
}

/** Reads the job's row until `until` holds (within 10 s). */
export async function waitForJob(db: Database, id: string, until: (row: { state: string; done: number }) => boolean) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const row = await db.selectFrom('jobs').select(['state', 'done', 'total', 'cursor', 'lease_owner']).where('id', '=', Number(id)).executeTakeFirstOrThrow();
    const seen = { ...row, done: Number(row.done), total: Number(row.total) };
    if (until(seen)) return seen;
    assert.ok(Date.now() < deadline, `job ${id} is still ${JSON.stringify(seen)}`);
    await sleep(5);
  }
}

/** Polls GET /api/jobs/<id> as `headers` until the job has ended (within 30 s: a loaded machine runs steps slowly); returns it, asserted done. */
export async function jobDone(app: App, id: string, headers: Record<string, string>) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const { status, body } = await getJob(app, id, headers);
    assert.equal(status, 200, JSON.stringify(body));
    if (body.state === 'done' || body.state === 'failed') {
      assert.equal(body.state, 'done', JSON.stringify(body));
      return body as { id: string; kind: string; state: string; done: number; total: number; error: string | null };
    }
    assert.ok(Date.now() < deadline, `job ${id} is still ${JSON.stringify(body)}`);
    await sleep(5);
  }
}

/**
 * Runs queued jobs in a second app on `ctx`'s database (as another server process would), for a
 * suite whose own app runs none, until job `id` is done; returns the job as `headers` see it.
 */
export async function runJobsUntilDone(ctx: Ctx, id: string, headers: Record<string, string>) {
  const runner = await buildApp(ctx.config, { database: ctx.database, clock: ctx.clock, jobs: { pollMs: 10 } });
  await runner.ready();
  try {
    return await jobDone(ctx.app, id, headers);
  } finally {
    await runner.close();
  }
}
