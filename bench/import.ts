// `npm run bench:import` (issue 57 point 7): `imageboard import folder` of N distinct images of
// 0.5-2 MP with .txt sidecars (bench/import-media.ts, cached under the OS's temporary folder) into
// a board that serves meanwhile (`npm start`'s build, SQLite; BENCH_DATABASE_URL or DATABASE_URL
// for PostgreSQL, in a database of its own made and dropped here). The import runs as a process of
// its own, as an operator runs it. Measured: posts/s over the import process's whole life, its peak
// RSS (the kernel's VmHWM), and the latency of reads sent to the server while it runs (a post list
// and a post page in turn, a few a second, loopback only). Also the CPU time each side used, and
// what the rest of the machine used meanwhile (other processes make wall-clock figures noisy).
// Exits 1 when a target fails. Every loop is bounded in count and time.
//   node --import tsx bench/import.ts [--posts 10000] [--concurrency N] [--workers 1] [--seed-posts 10000] [--reads-per-second 4]
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { DEFAULT_CACHE, describeImages, prepareImages, type BenchImage } from './import-media.ts';
import { assertLoopback } from './load.ts';
import { writeResult } from './report.ts';
import { cpuSecondsOfPid, namedCpuSeconds, processTree, sampleRss, treeCpuSeconds } from './rss.ts';
import { whole } from './run.ts';
import { ROOT, startServer } from './server.ts';
import { percentile } from './uploads.ts';

const TARGETS = { postsPerSecond: 50, peakRssMb: 400, readP99Ms: 100 };

const { values } = parseArgs({
  strict: true,
  options: {
    posts: { type: 'string' },
    concurrency: { type: 'string' },
    workers: { type: 'string' },
    'seed-posts': { type: 'string' },
    'reads-per-second': { type: 'string' },
    'max-seconds': { type: 'string' },
    cache: { type: 'string' },
    out: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});
const o = {
  posts: whole('posts', values.posts, 10, 100_000) ?? 10_000,
  concurrency: whole('concurrency', values.concurrency, 1, 64),
  workers: whole('workers', values.workers, 1, 16) ?? 1,
  seedPosts: whole('seed-posts', values['seed-posts'], 0, 1_000_000) ?? 10_000,
  readsPerSecond: whole('reads-per-second', values['reads-per-second'], 1, 50) ?? 4,
  maxSeconds: whole('max-seconds', values['max-seconds'], 10, 7200) ?? 1800,
  cache: path.resolve(values.cache ?? DEFAULT_CACHE),
  outDir: path.resolve(values.out ?? path.join(ROOT, 'bench', 'results')),
  databaseUrl: process.env.BENCH_DATABASE_URL || process.env.DATABASE_URL || '',
  keep: values.keep,
};

const log = (line: string) => console.log(line);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mb = (bytes: number) => bytes / 1024 / 1024;

/** Busy and total CPU seconds of the whole machine (/proc/stat), or null elsewhere. */
function machineCpu(): { busy: number; total: number } | null {
  try {
    const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const idle = f[3] + (f[4] ?? 0);
    const total = f.slice(0, 8).reduce((a, b) => a + b, 0);
    return { busy: (total - idle) / 100, total: total / 100 };
  } catch {
    return null;
  }
}

/** The kernel's peak RSS of a process (VmHWM) in bytes, or null when it is gone. */
function peakRssOf(pid: number): number | null {
  try {
    const m = /VmHWM:\s+(\d+)\s+kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** A folder of links to the images and their sidecars, 1,000 a subfolder (as gallery-dl's runs leave them). */
function linkSource(images: BenchImage[], dir: string): void {
  images.forEach((img, i) => {
    const sub = path.join(dir, `part-${String(Math.floor(i / 1000)).padStart(3, '0')}`);
    if (i % 1000 === 0) fs.mkdirSync(sub, { recursive: true });
    fs.symlinkSync(img.file, path.join(sub, path.basename(img.file)));
    fs.symlinkSync(img.sidecar, path.join(sub, path.basename(img.sidecar)));
  });
}

/** A database of its own on the PostgreSQL server of `url`, dropped by the returned function. */
async function scratchDatabase(url: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `ib_import_bench_${process.pid}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name}`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(url);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).finally(() => c.end());
    },
  };
}

interface Reads {
  latencies: number[];
  errors: number;
  statuses: Record<string, number>;
}

/**
 * Reads while `running()`: a page of the grid (GET /api/posts?limit=48) and the page of a post from
 * the last list, in turn, one at a time, `perSecond` a second; at most `perSecond * maxSeconds`.
 */
async function readLoop(origin: string, perSecond: number, maxSeconds: number, running: () => boolean): Promise<Reads> {
  assertLoopback(origin);
  const out: Reads = { latencies: [], errors: 0, statuses: {} };
  const end = Date.now() + maxSeconds * 1000;
  const max = perSecond * maxSeconds;
  let ids: number[] = [];
  for (let n = 0; n < max && running() && Date.now() < end; n++) {
    const due = performance.now() + 1000 / perSecond;
    const url = n % 2 === 0 || ids.length === 0 ? '/api/posts?limit=48' : `/api/posts/${ids[n % ids.length]}`;
    const t = performance.now();
    try {
      const res = await fetch(`${origin}${url}`, { signal: AbortSignal.timeout(10_000) });
      const body = await res.text();
      out.latencies.push(performance.now() - t);
      out.statuses[res.status] = (out.statuses[res.status] ?? 0) + 1;
      if (res.status !== 200) out.errors++;
      else if (url.includes('limit=')) ids = (JSON.parse(body) as { posts: { id: number | string }[] }).posts.map((p) => Number(p.id));
    } catch {
      out.errors++;
      out.statuses.error = (out.statuses.error ?? 0) + 1;
    }
    await sleep(Math.max(0, due - performance.now()));
  }
  return out;
}

interface ImportRun {
  exitCode: number | null;
  wallSeconds: number;
  /** The larger of the kernel's VmHWM as polled and /usr/bin/time's maximum RSS (exact, from wait4). */
  peakRssBytes: number | null;
  cpuSeconds: number | null;
  /** The command's summary line (`Imported N posts; ... (R posts/s).`). */
  summary: string;
  output: string;
}

const TIME = '/usr/bin/time';

/** `imageboard import folder SRC` as a process of its own (under /usr/bin/time when there is one), killed after --max-seconds. */
function startImport(src: string, dataDir: string, databaseUrl: string, report: string): { done: Promise<ImportRun>; running: () => boolean } {
  const args = [path.join(ROOT, 'bin', 'imageboard.js'), 'import', 'folder', src, '--report', report];
  if (o.concurrency !== undefined) args.push('--concurrency', String(o.concurrency));
  const timed = fs.existsSync(TIME);
  const started = performance.now();
  const child = spawn(timed ? TIME : process.execPath, timed ? ['-f', 'bench-rusage %M %U %S', process.execPath, ...args] : args, {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', REDIS_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let summary = '';
  let lastLog = 0;
  const keep = (d: Buffer) => {
    const text = d.toString();
    output = (output + text).slice(-8000);
    summary = /^(?:Imported|Would import) .*$/m.exec(text)?.[0] ?? summary;
    // The command's progress lines (one every 5 s off a terminal), every 30 s here.
    const progress = /^import .*$/m.exec(text)?.[0];
    if (progress && performance.now() - lastLog > 30_000) {
      lastLog = performance.now();
      log(progress);
    }
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  let nodePid: number | null = timed ? null : child.pid!;
  let peak = 0;
  let cpu: number | null = null;
  const sample = () => {
    nodePid ??= processTree(child.pid!)[1] ?? null;
    if (nodePid === null) return;
    peak = Math.max(peak, peakRssOf(nodePid) ?? 0);
    cpu = cpuSecondsOfPid(nodePid) ?? cpu;
  };
  const sampler = setInterval(sample, 100);
  const killer = setTimeout(() => {
    log(`import: still running after ${o.maxSeconds} s, killed`);
    child.kill('SIGKILL');
    if (nodePid !== null) process.kill(nodePid, 'SIGKILL');
  }, o.maxSeconds * 1000);
  let exited = false;
  const done = new Promise<ImportRun>((resolve) =>
    child.once('close', (code) => {
      exited = true;
      clearInterval(sampler);
      clearTimeout(killer);
      const wallSeconds = (performance.now() - started) / 1000;
      const rusage = /bench-rusage (\d+) ([\d.]+) ([\d.]+)/.exec(output);
      if (rusage) {
        peak = Math.max(peak, Number(rusage[1]) * 1024);
        cpu = Number(rusage[2]) + Number(rusage[3]);
      }
      resolve({ exitCode: code, wallSeconds, peakRssBytes: peak || null, cpuSeconds: cpu, summary, output });
    }),
  );
  return { done, running: () => !exited };
}

const quantiles = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? 0, count: sorted.length };
};

interface Check {
  name: string;
  pass: boolean;
}

async function main(): Promise<number> {
  const startedAt = new Date().toISOString();
  const loadAverageStart = os.loadavg();
  const images = await prepareImages(o.cache, o.posts, log);
  const media = describeImages(images);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ib-import-bench-'));
  const src = path.join(dir, 'source');
  const dataDir = path.join(dir, 'data');
  linkSource(images, src);
  const db = o.databaseUrl ? await scratchDatabase(o.databaseUrl) : null;
  const databaseUrl = db?.url ?? '';
  try {
    if (o.seedPosts > 0) {
      log(`board: seeding ${o.seedPosts.toLocaleString('en')} posts (no media)`);
      execFileSync(process.execPath, [path.join(ROOT, 'bin', 'imageboard.js'), 'seed', '--posts', String(o.seedPosts), '--no-media'], {
        cwd: ROOT,
        env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: databaseUrl },
        stdio: ['ignore', 'ignore', 'inherit'],
        timeout: 600_000,
      });
    }
    const server = await startServer({ dataDir, databaseUrl, workers: o.workers });
    const serverRss = sampleRss(server.pid);
    try {
      const before = await readLoop(server.origin, o.readsPerSecond, 5, () => true);
      log(`reads before the import: p50 ${quantiles(before.latencies).p50.toFixed(1)} ms, p99 ${quantiles(before.latencies).p99.toFixed(1)} ms`);
      const cpu0 = { server: treeCpuSeconds(server.pid), db: db ? namedCpuSeconds('postgres') : null, machine: machineCpu(), self: process.cpuUsage() };
      log(`import: ${o.posts.toLocaleString('en')} images (${(media.bytes / 1e9).toFixed(2)} GB) into ${databaseUrl ? 'PostgreSQL' : 'SQLite'}`);
      const imp = startImport(src, dataDir, databaseUrl, path.join(dir, 'report.jsonl'));
      const [run, reads] = await Promise.all([imp.done, readLoop(server.origin, o.readsPerSecond, o.maxSeconds, imp.running)]);
      const self = process.cpuUsage(cpu0.self);
      const machine1 = machineCpu();
      const serverCpu = (treeCpuSeconds(server.pid) ?? 0) - (cpu0.server ?? 0);
      const dbCpu = db ? (namedCpuSeconds('postgres') ?? 0) - (cpu0.db ?? 0) : null;
      const machineBusy = machine1 && cpu0.machine ? machine1.busy - cpu0.machine.busy : null;
      const others = machineBusy === null ? null : machineBusy - (run.cpuSeconds ?? 0) - serverCpu - (dbCpu ?? 0) - (self.user + self.system) / 1e6;
      const list = (await (await fetch(`${server.origin}/api/posts?limit=1`)).json()) as { totalPosts: number };
      const imported = Number(/^(?:Imported|Would import) ([\d,]+) posts/.exec(run.summary)?.[1].replace(/,/g, '') ?? 0);
      const postsPerSecond = o.posts / run.wallSeconds;
      const q = quantiles(reads.latencies);
      const qb = quantiles(before.latencies);
      const peakMb = run.peakRssBytes === null ? null : mb(run.peakRssBytes);
      const checks: Check[] = [
        {
          name: `every post imported (${imported.toLocaleString('en')} of ${o.posts.toLocaleString('en')}, exit ${run.exitCode})`,
          pass: run.exitCode === 0 && imported === o.posts,
        },
        { name: `posts/s >= ${TARGETS.postsPerSecond}`, pass: postsPerSecond >= TARGETS.postsPerSecond },
        { name: `peak RSS < ${TARGETS.peakRssMb} MB`, pass: peakMb !== null && peakMb < TARGETS.peakRssMb },
        { name: `read p99 < ${TARGETS.readP99Ms} ms`, pass: q.count > 0 && q.p99 < TARGETS.readP99Ms },
        { name: 'no read errors', pass: reads.errors === 0 },
      ];
      const wall = run.wallSeconds;
      const cores = (s: number | null) => (s === null ? 'n/a' : `${((s * 1000) / o.posts).toFixed(1)} ms a post (${(s / wall).toFixed(2)} cores)`);
      const engine = databaseUrl ? 'PostgreSQL' : 'SQLite';
      const rows = [
        [
          'posts/s (whole process, wall)',
          `${postsPerSecond.toFixed(1)} (${o.posts.toLocaleString('en')} in ${wall.toFixed(1)} s)`,
          `>= ${TARGETS.postsPerSecond}`,
        ],
        ['peak RSS of the import', peakMb === null ? 'n/a' : `${peakMb.toFixed(0)} MB`, `< ${TARGETS.peakRssMb} MB`],
        [
          'reads during the import, p50 / p99 / max',
          `${q.p50.toFixed(1)} / ${q.p99.toFixed(1)} / ${q.max.toFixed(0)} ms (${q.count} reads, ${reads.errors} errors)`,
          `p99 < ${TARGETS.readP99Ms} ms`,
        ],
        ['reads before it, p50 / p99', `${qb.p50.toFixed(1)} / ${qb.p99.toFixed(1)} ms (${qb.count} reads)`, ''],
        ['CPU of the import', cores(run.cpuSeconds), ''],
        ['CPU of the server', cores(serverCpu), ''],
        ...(dbCpu === null ? [] : [['CPU of PostgreSQL (every backend)', cores(dbCpu), '']]),
        ['CPU of everything else on the machine', others === null ? 'n/a' : `${Math.max(0, others / wall).toFixed(2)} cores`, ''],
        ['peak RSS of the server', `${mb(serverRss.stop().peakBytes ?? 0).toFixed(0)} MB`, ''],
      ];
      const md = [
        `Machine: ${os.cpus()[0]?.model ?? 'unknown'}, ${os.availableParallelism()} cores, Node ${process.version}, ${engine}; load average at the start ${loadAverageStart.map((l) => l.toFixed(2)).join(' ')}.`,
        `Media: ${media.files.toLocaleString('en')} images, ${(media.bytes / 1e9).toFixed(2)} GB, ${(media.megapixels / media.files).toFixed(2)} MP on average, ${media.png.toLocaleString('en')} PNG, ${media.exif.toLocaleString('en')} JPEG with EXIF; .txt sidecars of 10-20 tags.`,
        `Board: ${o.seedPosts.toLocaleString('en')} posts seeded before, ${list.totalPosts.toLocaleString('en')} after; server WORKERS=${o.workers}; import --concurrency ${o.concurrency ?? 'default'}; ${o.readsPerSecond} reads/s.`,
        '',
        '| Figure | Value | Target |',
        '|---|---|---|',
        ...rows.map((r) => `| ${r.join(' | ')} |`),
        '',
        `Import's summary: ${run.summary || '(none)'}`,
        `Targets: ${checks.map((c) => `${c.name}: ${c.pass ? 'PASS' : 'FAIL'}`).join('; ')}.`,
        '',
      ].join('\n');
      const result = {
        startedAt,
        options: { ...o, databaseUrl: databaseUrl ? 'postgres' : '' },
        media,
        run: { ...run, output: run.output.slice(-2000) },
        reads: { during: q, before: qb, statuses: reads.statuses },
        postsPerSecond,
        serverCpu,
        dbCpu,
        others,
        checks,
      };
      const files = writeResult(o.outDir, startedAt, 'import', result, md);
      log(`\n${md}\nreport: ${files.latestJson}`);
      if (run.exitCode !== 0) log(`import output (end):\n${run.output.slice(-2000)}`);
      return checks.every((c) => c.pass) ? 0 : 1;
    } finally {
      serverRss.stop();
      await server.stop();
    }
  } finally {
    await db?.drop().catch((err) => log(`could not drop the scratch database: ${err.message}`));
    if (o.keep) log(`kept ${dir}`);
    else fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    console.error(err);
    process.exitCode = 1;
  },
);
