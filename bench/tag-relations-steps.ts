import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import type { Dataset } from './dataset.ts';
import { runLoad, type LoadResult } from './load.ts';
import { treeCpuSeconds } from './rss.ts';
import { measured } from './run.ts';
import { ROOT, type ServerUnderTest } from './server.ts';
import { latencyStats, makePngs, signIn, timeUploads } from './uploads.ts';

/** The steps of bench/tag-relations.ts: what it needs from the dataset, and each measurement. */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The tags a run uses: the antecedent (the tag with the fewest posts at or above `atLeast`) and well-used ones for the uploads. */
export function pickTags(d: Dataset, atLeast: number, common: number): { antecedent: { name: string; posts: number }; common: string[] } {
  const conn = new SQLite(path.join(d.dataDir, 'imageboard.db'), { readonly: true });
  try {
    const row = conn.prepare('select name, post_count from tags where post_count >= ? order by post_count, id limit 1').get(atLeast) as
      | { name: string; post_count: number }
      | undefined;
    if (!row) throw new Error(`no tag has ${atLeast.toLocaleString('en')} posts or more: use more --posts`);
    // Ranked from 100 down: used, but not the handful every post has.
    const names = conn.prepare('select name from tags where post_count > 0 order by post_count desc, id limit ? offset 100').all(common) as { name: string }[];
    return { antecedent: { name: row.name, posts: row.post_count }, common: names.map((r) => r.name) };
  } finally {
    conn.close();
  }
}

/** A moderator made with the CLI on the stopped server's data (as a board's operator would); its name and password. */
export function createModerator(dataDir: string): { username: string; password: string } {
  const account = { username: `bench_mod_${randomBytes(4).toString('hex')}`, password: randomBytes(12).toString('hex') };
  execFileSync(process.execPath, [path.join(ROOT, 'bin', 'imageboard.js'), 'user', 'create', account.username, '--role', 'moderator'], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'warn' },
    input: account.password,
    stdio: ['pipe', 'ignore', 'inherit'],
  });
  return account;
}

export const login = (origin: string, account: { username: string; password: string }) => signIn(origin, '/api/auth/login', account, 200);

async function call(origin: string, cookie: string, method: string, route: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${origin}${route}`, {
    method,
    headers: { cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  return { status: res.status, body: await res.json().catch(() => null) };
}

async function createImplication(origin: string, cookie: string, from: string, to: string): Promise<{ status: number; jobId: string | null }> {
  const res = await call(origin, cookie, 'POST', '/api/tag-implications', { from, to });
  if (res.status !== 201 && res.status !== 202)
    throw new Error(`POST /api/tag-implications ${from} -> ${to} answered ${res.status}: ${JSON.stringify(res.body)}`);
  return { status: res.status, jobId: res.body?.job?.id ?? null };
}

const postsCount = async (origin: string, cookie: string, name: string) =>
  Number((await call(origin, cookie, 'GET', `/api/tags/${encodeURIComponent(name)}`)).body?.postsCount ?? -1);

export interface ReadLoad {
  connections: number;
  nextPath: () => string;
}

/** A measured read load of at most `seconds`, ended early by `signal`. */
export const readLoad = (server: ServerUnderTest, load: ReadLoad, seconds: number, signal?: AbortSignal): Promise<LoadResult> =>
  measured(server.pid, () =>
    runLoad({
      origin: server.origin,
      connections: load.connections,
      durationSeconds: seconds,
      maxRequests: seconds * 200_000,
      nextPath: load.nextPath,
      signal,
    }),
  );

export interface BackfillResult {
  antecedent: string;
  consequent: string;
  antecedentPosts: number;
  status: number;
  state: string;
  error: string | null;
  seconds: number;
  postsPerSecond: number;
  jobTotal: number;
  jobDone: number;
  /** The job's progress as it was polled: seconds since the POST, posts done. */
  progress: [number, number][];
  /** postsCount of both tags afterwards (GET /api/tags/<name>). */
  counts: { antecedent: number; consequent: number };
  verified: boolean;
  reads: LoadResult;
}

/**
 * Makes `antecedent -> consequent` while the read load runs, and times it from the POST until its
 * job is done (or failed, or `maxSeconds` passed); the load stops with it.
 */
export async function timeBackfill(
  server: ServerUnderTest,
  cookie: string,
  antecedent: { name: string; posts: number },
  load: ReadLoad,
  maxSeconds: number,
  log: (line: string) => void,
): Promise<BackfillResult> {
  const consequent = `bench_implied_${randomBytes(4).toString('hex')}`;
  const stop = new AbortController();
  const reads = readLoad(server, load, maxSeconds + 5, stop.signal);
  const started = performance.now();
  const seconds = () => (performance.now() - started) / 1000;
  const made = await createImplication(server.origin, cookie, antecedent.name, consequent).catch((err) => {
    stop.abort();
    throw err;
  });
  const progress: [number, number][] = [];
  let job = { state: made.jobId ? 'queued' : 'done', done: 0, total: 0, error: null as string | null };
  while (made.jobId && (job.state === 'queued' || job.state === 'running') && seconds() < maxSeconds) {
    await sleep(200);
    job = (await call(server.origin, cookie, 'GET', `/api/jobs/${made.jobId}`)).body ?? job;
    if (progress.at(-1)?.[1] !== job.done) progress.push([Number(seconds().toFixed(2)), job.done]);
    if (Math.floor(seconds() / 10) > Math.floor((seconds() - 0.3) / 10))
      log(`  backfill ${job.state}: ${job.done.toLocaleString('en')} posts at ${seconds().toFixed(0)} s`);
  }
  const took = seconds();
  stop.abort();
  const result = await reads;
  const counts = { antecedent: await postsCount(server.origin, cookie, antecedent.name), consequent: await postsCount(server.origin, cookie, consequent) };
  return {
    antecedent: antecedent.name,
    consequent,
    antecedentPosts: antecedent.posts,
    status: made.status,
    state: job.state,
    error: job.error,
    seconds: took,
    postsPerSecond: job.done / Math.max(0.001, took),
    jobTotal: job.total,
    jobDone: job.done,
    progress,
    counts,
    verified: job.state === 'done' && counts.consequent === counts.antecedent && counts.antecedent > 0,
    reads: result,
  };
}

export interface UploadSide {
  uploads: number;
  ok: number;
  latencyMs: { p50: number; p99: number; max: number };
  serverCpuMsPerUpload: number | null;
}

export interface UploadCost {
  tags: string[];
  implications: string[];
  plain: UploadSide;
  tagged: UploadSide;
  /** Whether a tagged upload came out with the tags its tags imply. */
  impliedGiven: boolean;
}

/**
 * `count` uploads without tags and `count` with 30 tags, 10 of which imply another (made first:
 * fresh tags, so no backfill), one kind after the other in `rounds` turns so both meet the same
 * moments of the machine. Bounded by `until` (epoch ms) as well as by count.
 */
export async function timeUploadCost(
  server: ServerUnderTest,
  cookie: string,
  common: string[],
  count: number,
  rounds: number,
  until: number,
): Promise<UploadCost> {
  const id = randomBytes(3).toString('hex');
  const sources = Array.from({ length: 10 }, (_, k) => `bench_${id}_src_${k}`);
  const implications: string[] = [];
  for (const [k, from] of sources.entries()) {
    const to = `bench_${id}_dst_${k}`;
    await createImplication(server.origin, cookie, from, to);
    implications.push(`${from} -> ${to}`);
  }
  const tags = [...sources, ...common.slice(0, 30 - sources.length)];
  const pngs = await makePngs(2 * count);
  const sides = { plain: { ms: [] as number[], cpu: 0, ok: 0 }, tagged: { ms: [] as number[], cpu: 0, ok: 0 } };
  let sample: string | undefined;
  const per = Math.ceil(count / rounds);
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? (['plain', 'tagged'] as const) : (['tagged', 'plain'] as const);
    for (const kind of order) {
      const at = (r * 2 + (kind === 'plain' ? 0 : 1)) * per;
      const before = treeCpuSeconds(server.pid) ?? 0;
      const run = await timeUploads(server.origin, cookie, pngs.slice(at, at + per), kind === 'tagged' ? { tags: tags.join(', ') } : {}, until);
      sides[kind].cpu += (treeCpuSeconds(server.pid) ?? 0) - before;
      sides[kind].ms.push(...run.latencies);
      sides[kind].ok += run.created.length;
      if (kind === 'tagged') sample ??= run.created[0];
    }
  }
  const given = sample ? ((await call(server.origin, cookie, 'GET', `/api/posts/${sample}`)).body?.tags ?? []) : [];
  const side = (s: typeof sides.plain): UploadSide => ({
    uploads: s.ms.length,
    ok: s.ok,
    latencyMs: latencyStats(s.ms),
    serverCpuMsPerUpload: treeCpuSeconds(server.pid) === null || s.ms.length === 0 ? null : (s.cpu * 1000) / s.ms.length,
  });
  return {
    tags,
    implications,
    plain: side(sides.plain),
    tagged: side(sides.tagged),
    impliedGiven: sources.every((_, k) => given.includes(`bench_${id}_dst_${k}`)),
  };
}
