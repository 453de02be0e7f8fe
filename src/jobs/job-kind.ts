import type { Deps } from '../core/deps.ts';
import type { Db, Tx } from '../db/engine.ts';

/**
 * A kind of background job: what a job does, written as one bounded step the runner calls again
 * and again (runner.ts). The runner knows nothing else about it.
 *
 * A step does a batch of items after `cursor` (e.g. up to 200 posts with ids above the last one
 * done) in `trx`, the transaction that also saves the job's new cursor and counts: the step's
 * writes and its progress commit together, so after a crash or a restart the job resumes at the
 * cursor and no item is done twice. A step must stay well within the lease (runner.ts, 30 s) and
 * short enough not to hold up requests (on SQLite a write transaction holds the whole database).
 * A step that throws fails the job, with the error's message.
 */
/**
 * A kind's name with its parameters' type: what a service needs to start a job of that kind, or
 * run it at once (jobs.service.ts), without importing the code that does the work. The kinds are
 * registered where the app is put together (src/job-kinds.ts); a JobKind is a JobRef too.
 */
export interface JobRef<Params = any> {
  readonly name: string;
  /** Never set: it carries the type of the parameters. */
  readonly params?: Params;
}

export const jobRef = <Params>(name: string): JobRef<Params> => ({ name });

export interface JobKind<Params = any, Cursor = any> {
  /** A unique name, stored on the job and shown as its `kind`. */
  name: string;
  /** How many items the job has, counted when it is created (and at least what it has done). */
  total(db: Db, params: Params): Promise<number>;
  step(input: StepInput<Params, Cursor>): Promise<StepResult<Cursor>>;
}

export interface StepInput<Params, Cursor> {
  /** The step's transaction: write through it. */
  trx: Tx;
  /** The job's id (for what a kind keeps under it, e.g. the posts of job_posts). */
  job: number;
  /** Everything else, as services get it; call deps.db's engine methods (not its queries) inside the step. */
  deps: Deps;
  params: Params;
  /** Where the last step stopped; null before the first step. */
  cursor: Cursor | null;
}

export interface StepResult<Cursor> {
  /** Where the next step starts (saved as JSON). */
  cursor: Cursor;
  /** Items done by this step. */
  done: number;
  /** Nothing is left: the job is done. */
  finished: boolean;
}
