import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { startCeiling, type Sizes } from './ceiling.ts';
import { datasetBytes, prepareDataset } from './dataset.ts';
import { combineLoads, runLoad, sliceCount, type LoadResult } from './load.ts';
import { computeChecks, consoleSummary, markdown, updateDocs, writeReport, type Report, type ScenarioReport } from './report.ts';
import { ServerBackends } from './pg-backends.ts';
import { treeCpuSeconds } from './rss.ts';
import { warmFileCache } from './file-cache.ts';
import { Prng, SCENARIO_NAMES, UPLOAD_SCENARIO, buildScenarios, seedOf, type Scenario } from './scenarios.ts';
import { metricsSettings, type Scraper, scrapeEvery } from './metrics-scrape.ts';
import { ROOT, ServerUnderTest, type Child } from './server.ts';
import { percentile, runUploads, type UploadResult } from './uploads.ts';

/**
 * `npm run bench`: builds or reuses the dataset, starts our server (WORKERS processes, rate
 * limits off) and a bare node:http ceiling server with as many processes, runs every scenario
 * against both at each connection count, and writes the report (bench/results/, docs/benchmarks.md).
 */

export interface BenchOptions {
  posts: number;
  connections: number[];
  durationSeconds: number;
  workers: number;
  /** Scenario names to run (read scenarios and `upload`); empty: all. */
  scenarios: string[];
  outDir: string;
  /** Replace the latest table in docs/benchmarks.md (`--no-docs` turns it off). */
  docs: boolean;
  docsPath: string;
  /** postgres://... to run on PostgreSQL (BENCH_DATABASE_URL); empty: SQLite. */
  databaseUrl: string;
  /** Where SQLite datasets live. */
  dataRoot: string;
  seed: number;
  tagsPerPost: number;
  /** Sample requests a scenario whose response sizes the ceiling server imitates. */
  samples: number;
  /**
   * Seconds of a scenario's own requests on each server before its first measured run, not
   * measured: a server's first seconds of a kind of request cost more (JIT, caches) than the
   * steady state the targets are about.
   */
  warmupSeconds: number;
  /** Read the database through the OS's cache before each scenario (bench/file-cache.ts; `--no-file-cache` turns it off). */
  fileCache: boolean;
  uploads: number;
  /** The server with METRICS on, scraped every 15 s as Prometheus would (`--metrics`; bench/metrics-scrape.ts). */
  metrics: boolean;
  log: (line: string) => void;
}

export function defaultOptions(): BenchOptions {
  return {
    posts: 1_000_000,
    connections: [16, 64],
    durationSeconds: 10,
    workers: 2,
    scenarios: [],
    outDir: path.join(ROOT, 'bench', 'results'),
    docs: true,
    docsPath: path.join(ROOT, 'docs', 'benchmarks.md'),
    databaseUrl: process.env.BENCH_DATABASE_URL ?? '',
    dataRoot: path.join(ROOT, 'bench', 'data'),
    seed: 1,
    tagsPerPost: 15,
    samples: 50,
    warmupSeconds: 3,
    fileCache: true,
    uploads: 20,
    metrics: false,
    log: (line) => console.log(line),
  };
}

const ALL = [...SCENARIO_NAMES, UPLOAD_SCENARIO] as string[];

/** Fetches sample paths one by one: each response's size, and how many were not 2xx. */
export async function sampleSizes(origin: string, s: Scenario, count: number): Promise<{ sizes: number[]; ms: number[]; errors: number }> {
  const rng = new Prng(seedOf(`samples/${s.name}`));
  const sizes: number[] = [];
  const ms: number[] = [];
  let errors = 0;
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    const res = await fetch(origin + rng.pick(s.paths), { signal: AbortSignal.timeout(60_000) });
    const body = Buffer.from(await res.arrayBuffer());
    ms.push(performance.now() - t);
    if (!res.ok) errors++;
    sizes.push(body.length);
  }
  return { sizes, ms, errors };
}

export function sizeStats(sizes: number[]) {
  const sorted = [...sizes].sort((a, b) => a - b);
  return { count: sorted.length, min: sorted[0] ?? 0, median: percentile(sorted, 50), max: sorted[sorted.length - 1] ?? 0 };
}

/**
 * A load run, with the CPU time the target's processes spent per request (steady on a busy
 * machine), and on PostgreSQL the CPU time of the server's backends per request too: the two
 * sides of a request.
 */
export async function measured(pid: number, run: () => Promise<LoadResult>, backends?: ServerBackends): Promise<LoadResult> {
  const databaseCpu = async () => (backends ? await backends.cpuSeconds() : null);
  const dbBefore = await databaseCpu();
  const before = treeCpuSeconds(pid);
  const result = await run();
  const after = treeCpuSeconds(pid);
  const dbAfter = await databaseCpu();
  const perRequest = (a: number | null, b: number | null) => (a !== null && b !== null && result.requests > 0 ? ((b - a) * 1000) / result.requests : undefined);
  result.serverCpuMsPerRequest = perRequest(before, after);
  if (backends) result.databaseCpuMsPerRequest = perRequest(dbBefore, dbAfter);
  return result;
}

/** A scenario's own requests on both servers, not measured, so neither meets them cold in a measured run. */
async function warmUp(server: ServerUnderTest, ceiling: Child, s: Scenario, sizes: Sizes, o: BenchOptions): Promise<void> {
  const rng = new Prng(seedOf(`warmup/${s.name}`));
  const count = sizes[s.name].length;
  const common = { connections: o.connections[0], durationSeconds: o.warmupSeconds, maxRequests: o.warmupSeconds * 200_000 };
  const ours = await runLoad({ ...common, origin: server.origin, nextPath: () => s.paths[rng.int(s.paths.length)] });
  await runLoad({ ...common, origin: ceiling.origin, nextPath: () => `/${s.name}/${rng.int(count)}` });
  o.log(`${s.name.padEnd(14)} warm-up: ${o.warmupSeconds} s on each server (${Math.round(ours.requestsPerSecond)} req/s on ours, ${ours.errors} errors)`);
}

export async function runBench(given: Partial<BenchOptions> = {}): Promise<{ report: Report; files: ReturnType<typeof writeReport> }> {
  const o: BenchOptions = { ...defaultOptions(), ...given };
  const unknown = o.scenarios.filter((n) => !ALL.includes(n));
  if (unknown.length) throw new Error(`unknown scenario ${unknown.join(', ')}; known: ${ALL.join(', ')}`);
  const wanted = (name: string) => o.scenarios.length === 0 || o.scenarios.includes(name);
  const startedAt = new Date().toISOString();
  const loadAverageStart = os.loadavg();

  const dataset = await prepareDataset({
    posts: o.posts,
    seed: o.seed,
    tagsPerPost: o.tagsPerPost,
    dataRoot: o.dataRoot,
    databaseUrl: o.databaseUrl,
    log: o.log,
  });
  const scenarios = (await buildScenarios(dataset, o.seed)).filter((s) => wanted(s.name));
  for (const s of scenarios) {
    if (s.paths.length < 1000) o.log(`note: ${s.name} has ${s.paths.length} distinct paths (the dataset allows no more)`);
  }

  const backends = dataset.databaseUrl ? new ServerBackends(o.databaseUrl) : undefined;
  const databaseUrl = backends ? backends.serverUrl(dataset.databaseUrl) : dataset.databaseUrl;
  // Read before the run: a PostgreSQL that cannot say them stops it before its twenty minutes.
  const postgres = await backends?.settings();
  const metrics = o.metrics ? metricsSettings() : null;
  const server = new ServerUnderTest({ dataDir: dataset.dataDir, databaseUrl, workers: o.workers, env: metrics?.env }, o.log);
  let scraper: Scraper | null = null;
  let ceiling: Child | null = null;
  const reports: ScenarioReport[] = [];
  let upload: UploadResult | null = null;
  try {
    o.log(`server: starting with WORKERS=${o.workers} on ${dataset.kind}${metrics ? ', METRICS on (GET /metrics scraped every 15 s)' : ''}`);
    await server.start();
    if (metrics) scraper = scrapeEvery(() => server.origin, metrics.token);

    const sizes: Sizes = {};
    for (const s of scenarios) {
      const sample = await sampleSizes(server.origin, s, o.samples);
      sizes[s.name] = sample.sizes;
      const ms = [...sample.ms].sort((a, b) => a - b);
      reports.push({
        name: s.name,
        description: s.description,
        distinctPaths: s.paths.length,
        sampleBytes: sizeStats(sample.sizes),
        sampleMs: { median: percentile(ms, 50), max: ms[ms.length - 1] ?? 0 },
        sampleErrors: sample.errors,
        ceilingTarget: s.ceilingTarget,
        ...(s.p99TargetMs ? { p99TargetMs: s.p99TargetMs } : {}),
        runs: [],
      });
      if (sample.errors) o.log(`warning: ${sample.errors} of ${o.samples} sample requests of ${s.name} were not 2xx`);
    }
    if (scenarios.length) ceiling = await startCeiling(sizes, o.workers);

    const maxRequests = o.durationSeconds * 200_000;
    let previous = 'the samples';
    server.rssLap();
    for (const [i, s] of scenarios.entries()) {
      if (o.fileCache) {
        const warmed = await warmFileCache(dataset, o.databaseUrl);
        o.log(`${s.name.padEnd(14)} file cache: ${(warmed.bytes / 1e9).toFixed(2)} GB of the database read in ${warmed.seconds.toFixed(1)} s`);
      }
      if (o.warmupSeconds > 0) {
        await server.settle(previous);
        await warmUp(server, ceiling!, s, sizes, o);
        previous = `${s.name}'s warm-up`;
      }
      for (const connections of o.connections) {
        const rng = new Prng(seedOf(`load/${s.name}/${connections}`));
        await server.settle(previous);
        previous = `${s.name} at ${connections} connections`;
        // Ours and the ceiling take turns in slices of the run's time, so both meet the same
        // moments of a machine whose speed drifts (see docs/benchmarks.md); the totals are the slices'.
        const slices = sliceCount(o.durationSeconds);
        const count = sizes[s.name].length;
        const mine: LoadResult[] = [];
        const tops: LoadResult[] = [];
        for (let k = 0; k < slices; k++) {
          mine.push(
            await measured(
              server.pid,
              () =>
                runLoad({
                  origin: server.origin,
                  connections,
                  durationSeconds: o.durationSeconds / slices,
                  maxRequests: maxRequests / slices,
                  nextPath: () => s.paths[rng.int(s.paths.length)],
                }),
              backends,
            ),
          );
          tops.push(
            await measured(ceiling!.pid, () =>
              runLoad({
                origin: ceiling!.origin,
                connections,
                durationSeconds: o.durationSeconds / slices,
                maxRequests: maxRequests / slices,
                nextPath: () => `/${s.name}/${rng.int(count)}`,
              }),
            ),
          );
        }
        const ours = combineLoads(mine);
        const top = combineLoads(tops);
        const run = { connections, ours, ceiling: top, ratio: ours.requestsPerSecond / Math.max(1e-9, top.requestsPerSecond) };
        reports[i].runs.push(run);
        o.log(
          `${s.name.padEnd(14)} c=${connections}: ${Math.round(ours.requestsPerSecond)} req/s, p99 ${ours.latencyMs.p99} ms, ` +
            `errors ${ours.errors}; ceiling ${Math.round(top.requestsPerSecond)} req/s (${(run.ratio * 100).toFixed(1)}%)`,
        );
      }
      reports[i].peakRssBytes = server.rssLap();
    }
    if (wanted(UPLOAD_SCENARIO) && o.uploads > 0) {
      await server.settle(previous);
      upload = await runUploads(server.origin, o.uploads);
      upload.peakRssBytes = server.rssLap();
      o.log(`upload: ${upload.ok}/${upload.uploads} accepted, p50 ${upload.latencyMs.p50.toFixed(0)} ms, p99 ${upload.latencyMs.p99.toFixed(0)} ms`);
    }
  } finally {
    const scraped = await scraper?.stop();
    if (scraped) o.log(`metrics: ${scraped.scrapes} scrapes answered (${scraped.lastBytes} bytes the last), ${scraped.failures} not`);
    await ceiling?.stop();
    await server.stop();
    await backends?.close();
  }
  const memory = server.rss();

  const base = {
    kind: dataset.kind,
    startedAt,
    finishedAt: new Date().toISOString(),
    options: {
      posts: o.posts,
      connections: o.connections,
      durationSeconds: o.durationSeconds,
      workers: o.workers,
      warmupSeconds: o.warmupSeconds,
      fileCache: o.fileCache,
      ...(o.metrics ? { metrics: true } : {}),
      scenarios: [...scenarios.map((s) => s.name), ...(upload ? [UPLOAD_SCENARIO] : [])],
    },
    machine: {
      cpus: os.availableParallelism(),
      cpuModel: os.cpus()[0]?.model ?? 'unknown',
      node: process.version,
      loadAverageStart,
      loadAverageEnd: os.loadavg(),
      ...(postgres ? { postgres } : {}),
    },
    dataset: {
      name: dataset.name,
      reused: dataset.reused,
      generationSeconds: dataset.generationSeconds,
      generationCpuSeconds: dataset.generationCpuSeconds,
      bytes: await datasetBytes(dataset, o.databaseUrl),
      ageDays: dataset.ageDays,
      summary: dataset.summary,
    },
    server: {
      peakRssBytes: memory.peakBytes,
      processes: memory.processes,
      samples: memory.samples,
      restartedAfter: server.restartedAfter,
      readySeconds: server.readySeconds,
      firstListSeconds: server.firstListSeconds,
    },
    scenarios: reports,
    upload,
  };
  const checks = computeChecks(base);
  const report: Report = { ...base, checks, passed: checks.every((c) => c.pass) };
  const files = writeReport(report, o.outDir);
  if (o.docs) {
    const where = path.relative(ROOT, o.docsPath) || o.docsPath;
    if (updateDocs(o.docsPath, markdown(report), report.kind)) o.log(`${where}: the ${report.kind} table updated`);
    else o.log(`${where}: no ${report.kind} bench markers, table not written`);
  }
  o.log(consoleSummary(report));
  o.log(`report: ${files.json}\n        ${files.markdown}`);
  return { report, files };
}

export function whole(name: string, raw: string | undefined, min: number, max: number): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) throw new Error(`--${name} must be a whole number from ${min} to ${max} (got '${raw}')`);
  return Number(raw);
}

export function parseBenchArgs(argv: string[]): Partial<BenchOptions> {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      posts: { type: 'string' },
      connections: { type: 'string' },
      duration: { type: 'string' },
      workers: { type: 'string' },
      scenarios: { type: 'string' },
      out: { type: 'string' },
      'no-docs': { type: 'boolean' },
      'no-file-cache': { type: 'boolean' },
      'no-readme': { type: 'boolean' },
      seed: { type: 'string' },
      warmup: { type: 'string' },
      metrics: { type: 'boolean' },
    },
  });
  const out: Partial<BenchOptions> = {};
  const set = <K extends keyof BenchOptions>(key: K, v: BenchOptions[K] | undefined) => {
    if (v !== undefined) out[key] = v;
  };
  set('posts', whole('posts', values.posts, 100, 10_000_000));
  set('durationSeconds', whole('duration', values.duration, 1, 600));
  set('workers', whole('workers', values.workers, 1, 64));
  set('seed', whole('seed', values.seed, 0, 2 ** 32 - 1));
  set('warmupSeconds', whole('warmup', values.warmup, 0, 600));
  if (values.connections !== undefined) out.connections = values.connections.split(',').map((c) => whole('connections', c.trim(), 1, 1024)!);
  if (values.scenarios !== undefined)
    out.scenarios = values.scenarios
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  if (values.out !== undefined) out.outDir = path.resolve(values.out);
  // --no-readme: the option's name from when the tables were in the README; kept so old commands work.
  if (values['no-docs'] || values['no-readme']) out.docs = false;
  if (values['no-file-cache']) out.fileCache = false;
  if (values.metrics) out.metrics = true;
  return out;
}

const USAGE = `Usage: npm run bench -- [--posts N] [--connections 16,64] [--duration S] [--workers N]
       [--scenarios ${ALL.join(',')}] [--out DIR] [--no-docs] [--seed S] [--warmup S] [--no-file-cache] [--metrics]
BENCH_DATABASE_URL=postgres://... runs on PostgreSQL instead of SQLite.`;

async function main(): Promise<void> {
  let options: Partial<BenchOptions>;
  try {
    options = parseBenchArgs(process.argv.slice(2));
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  await runBench(options);
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
