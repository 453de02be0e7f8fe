import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { openDeps } from '../core/deps-open.ts';
import { toId } from '../core/ids.ts';
import { jobForCli } from '../jobs/jobs.service.ts';
import type { Job } from '../jobs/jobs.schemas.ts';
import { progressPrinter } from './progress.ts';
import type { CommandIo } from './seed.ts';

export const JOBS_USAGE = `  jobs show <id> [--wait]
        A background job's state and progress; --wait shows its progress until it is done or failed.
`;

const STD_IO: CommandIo = { env: process.env, out: process.stdout, err: process.stderr };
/** How long --wait lets a job sit in the queue before saying that no server seems to be running it. */
const QUEUED_HINT_MS = 10_000;

const count = (n: number) => n.toLocaleString('en');

function describe(job: Job): string {
  const progress = `${count(job.done)} of ${count(job.total)}`;
  if (job.state === 'failed') return `job ${job.id} (${job.kind}): failed after ${progress}: ${job.error}\n`;
  return `job ${job.id} (${job.kind}): ${job.state}, ${progress}\n`;
}

/** `imageboard jobs show <id> [--wait]`: 0 when shown (or done), 1 when unknown or failed, 2 on bad usage. */
export async function jobsCommand(args: string[], io: CommandIo = STD_IO, pollMs = 500): Promise<number> {
  const { positionals, values } = parseArgs({ args, allowPositionals: true, options: { wait: { type: 'boolean', default: false } } });
  const [sub, raw] = positionals;
  if (positionals.length !== 2 || sub !== 'show') {
    io.err.write(`Usage:\n${JOBS_USAGE}`);
    return 2;
  }
  const id = toId(raw);
  if (id === null) {
    io.err.write(`'${raw}' is not a job id: job ids are whole numbers from 1\n`);
    return 2;
  }
  const deps = await openDeps(loadConfig(io.env), { err: io.err });
  try {
    let job = await jobForCli(deps, id);
    if (values.wait && job) job = await follow(deps, job, io, pollMs);
    if (!job) {
      io.err.write(`There is no job ${id}\n`);
      return 1;
    }
    io.out.write(describe(job));
    return job.state === 'failed' ? 1 : 0;
  } finally {
    await deps.close();
  }
}

/** Shows the job's progress until it ends (a server process runs it; this only reads). */
async function follow(deps: Parameters<typeof jobForCli>[0], first: Job, io: CommandIo, pollMs: number): Promise<Job | null> {
  const show = progressPrinter(io.err, `job ${first.id}`);
  const started = performance.now();
  let hinted = false;
  let job: Job | null = first;
  while (job && (job.state === 'queued' || job.state === 'running')) {
    show(job.kind, job.done, job.total);
    if (!hinted && job.state === 'queued' && performance.now() - started > QUEUED_HINT_MS) {
      hinted = true;
      show.clear();
      io.err.write(`job ${job.id} is still queued: the server runs jobs, so check that it is running on this database\n`);
    }
    await sleep(pollMs);
    job = await jobForCli(deps, Number(first.id));
  }
  if (job) show(job.kind, job.done, job.total);
  show.end();
  return job;
}
