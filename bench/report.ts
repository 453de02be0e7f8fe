import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { sliceCount, type LoadResult } from './load.ts';
import type { UploadResult } from './uploads.ts';
import type { PostgresSettings } from './pg-backends.ts';
import { ROOT } from './server.ts';
import type { SeedSummary } from '../src/seed/generate.ts';

/** The report: JSON for tools, a markdown table for people, and the tables of docs/benchmarks.md. */

/** A section of docs/benchmarks.md a run rewrites: one per engine's latest table, and the tag relations' figures. */
export type DocSection = 'sqlite' | 'postgres' | 'tag-relations';

/** Where docs/benchmarks.md holds a section (SQLite's markers predate the others, hence no name). */
export const docMarkers = (kind: DocSection) =>
  kind === 'sqlite'
    ? { start: '<!-- bench:start -->', end: '<!-- bench:end -->' }
    : { start: `<!-- bench:${kind}:start -->`, end: `<!-- bench:${kind}:end -->` };

/** Issue 8's targets, checked on SQLite at 16 connections; a server ready (/readyz 200) within readySeconds of its start at any size. */
export const TARGETS = {
  connections: 16,
  p99Ms: 50,
  peakRssBytes: 400 * 1024 * 1024,
  generationSeconds: 300,
  generationAtPosts: 1_000_000,
  readySeconds: 60,
} as const;

/**
 * Issue 59's targets at Danbooru's size, from ten million posts on: every read scenario's p99
 * (danbooru-posts, pages of 200: its own) and share of the ceiling, uploads' p99, the peak RSS
 * over all the server's threads and processes, and the dataset built within the hour's part.
 */
export const TEN_MILLION = {
  posts: 10_000_000,
  p99Ms: 100,
  p99MsOf: { 'danbooru-posts': 250 } as Record<string, number>,
  ceilingShare: 0.15,
  uploadP99Ms: 200,
  peakRssBytes: 1024 * 1024 * 1024,
  generationSeconds: 45 * 60,
} as const;

/** On PostgreSQL (issue 24 point 6): every read scenario at p99 under 50 ms (danbooru-posts: its own) and at least this share of the ceiling. */
export const POSTGRES_CEILING = 0.15;

export interface ScenarioRun {
  connections: number;
  ours: LoadResult;
  ceiling: LoadResult;
  /** ours / ceiling requests per second. */
  ratio: number;
}

export interface ScenarioReport {
  name: string;
  description: string;
  distinctPaths: number;
  /** Response sizes of the sample requests the ceiling server imitates. */
  sampleBytes: { count: number; min: number; median: number; max: number };
  /** Latency of those sample requests, sent one at a time before the load (the server otherwise idle). */
  sampleMs: { median: number; max: number };
  sampleErrors: number;
  ceilingTarget: number | null;
  /** Its own p99 target on SQLite (ms), when it has one; else TARGETS.p99Ms. */
  p99TargetMs?: number;
  runs: ScenarioRun[];
  /** Peak RSS summed over the server's processes while this scenario ran (null where not measured). */
  peakRssBytes?: number | null;
}

export interface Check {
  name: string;
  target: string;
  value: string;
  pass: boolean;
}

export interface Report {
  kind: 'sqlite' | 'postgres';
  startedAt: string;
  finishedAt: string;
  options: {
    posts: number;
    connections: number[];
    durationSeconds: number;
    workers: number;
    scenarios: string[];
    warmupSeconds?: number;
    fileCache?: boolean;
    /** The server ran with METRICS on and was scraped every 15 s (`--metrics`). */
    metrics?: boolean;
  };
  machine: {
    cpus: number;
    cpuModel: string;
    node: string;
    loadAverageStart: number[];
    loadAverageEnd: number[];
    /** The PostgreSQL of a PostgreSQL run, as it was found (the bench changes none of its settings). */
    postgres?: PostgresSettings;
  };
  dataset: {
    name: string;
    reused: boolean;
    generationSeconds: number;
    generationCpuSeconds: number | null;
    bytes: number;
    ageDays: number;
    summary: SeedSummary;
  };
  server: {
    peakRssBytes: number | null;
    processes: number;
    samples: number;
    restartedAfter: string[];
    readySeconds?: number | null;
    firstListSeconds?: number | null;
  };
  scenarios: ScenarioReport[];
  upload: UploadResult | null;
  /** The targets (computeChecks): SQLite's, or PostgreSQL's (issue 24 point 6). */
  checks: Check[];
  passed: boolean;
}

export const int = (n: number) => Math.round(n).toLocaleString('en');
export const ms = (n: number) => (n >= 100 ? Math.round(n).toString() : n.toFixed(1));
const pct = (r: number) => `${(r * 100).toFixed(r < 0.1 ? 1 : 0)}%`;
const mb = (b: number) => `${(b / 1024 / 1024).toFixed(0)} MB`;
const size = (b: number) => (b >= 1024 ** 3 ? `${(b / 1024 ** 3).toFixed(2)} GB` : mb(b));
const cpuMs = (v: number | undefined) => (v === undefined ? 'n/a' : v.toFixed(2));
const cpu = (l: LoadResult) => cpuMs(l.serverCpuMsPerRequest);
export const mark = (pass: boolean) => (pass ? 'PASS' : 'FAIL');

/** The connection count the targets are checked at: 16, else the lowest that ran. */
export function checkedConnections(r: Pick<Report, 'options'>): number {
  return r.options.connections.includes(TARGETS.connections) ? TARGETS.connections : Math.min(...r.options.connections);
}

/**
 * The targets: on SQLite every scenario's p99 and errors, the ceiling shares of the scenarios
 * that have one, uploads, dataset generation and memory; on PostgreSQL (issue 24 point 6) every
 * read scenario's p99, errors and a share of POSTGRES_CEILING.
 */
export function computeChecks(r: Omit<Report, 'checks' | 'passed'>): Check[] {
  const postgres = r.kind !== 'sqlite';
  const big = r.dataset.summary.posts >= TEN_MILLION.posts;
  const at = checkedConnections(r);
  const checks: Check[] = [];
  for (const s of r.scenarios) {
    const run = s.runs.find((x) => x.connections === at);
    if (!run) continue;
    // Every read scenario has the same p99 target (issue 8, issue 24 point 6), but those with one of their own.
    const p99Ms = big ? (TEN_MILLION.p99MsOf[s.name] ?? TEN_MILLION.p99Ms) : s.p99TargetMs || TARGETS.p99Ms;
    checks.push({
      name: `${s.name} p99`,
      target: `< ${p99Ms} ms at ${at} conns`,
      value: `${ms(run.ours.latencyMs.p99)} ms`,
      pass: run.ours.latencyMs.p99 < p99Ms,
    });
    const share = big ? TEN_MILLION.ceilingShare : postgres ? POSTGRES_CEILING : s.ceilingTarget;
    if (share !== null) {
      checks.push({ name: `${s.name} ceiling`, target: `>= ${pct(share)}`, value: pct(run.ratio), pass: run.ratio >= share });
    }
    const errors = s.runs.reduce((n, x) => n + x.ours.errors, 0);
    checks.push({ name: `${s.name} errors`, target: '0', value: String(errors), pass: errors === 0 });
  }
  if (r.upload) checks.push({ name: 'upload errors', target: '0', value: String(r.upload.errors), pass: r.upload.errors === 0 });
  if (r.upload && big) {
    const p99 = r.upload.latencyMs.p99;
    checks.push({ name: 'upload p99', target: `< ${TEN_MILLION.uploadP99Ms} ms`, value: `${ms(p99)} ms`, pass: p99 < TEN_MILLION.uploadP99Ms });
  }
  const ready = r.server.readySeconds;
  if (typeof ready === 'number') {
    checks.push({ name: 'start to /readyz', target: `< ${TARGETS.readySeconds} s`, value: `${ready.toFixed(1)} s`, pass: ready < TARGETS.readySeconds });
  }
  if (postgres) return checks;
  if (r.dataset.summary.posts >= TARGETS.generationAtPosts) {
    const secs = r.dataset.generationSeconds;
    const limit = big ? TEN_MILLION.generationSeconds : TARGETS.generationSeconds;
    checks.push({ name: 'dataset generation', target: `< ${limit} s`, value: `${secs.toFixed(0)} s`, pass: secs < limit });
  }
  if (r.server.peakRssBytes !== null) {
    const limit = big ? TEN_MILLION.peakRssBytes : TARGETS.peakRssBytes;
    checks.push({ name: 'peak RSS', target: `< ${mb(limit)}`, value: mb(r.server.peakRssBytes), pass: r.server.peakRssBytes < limit });
  }
  return checks;
}

const pgSettings = (p: PostgresSettings | undefined) => (p ? `, PostgreSQL ${p.version} with shared_buffers ${p.sharedBuffers}` : '');

export function markdown(r: Report): string {
  const postgres = r.kind !== 'sqlite';
  const title = postgres ? 'PostgreSQL' : 'SQLite';
  const at = checkedConnections(r);
  const lines = [
    `### ${title}, ${int(r.options.posts)} posts`,
    '',
    `Run at ${r.startedAt.slice(0, 16).replace('T', ' ')} UTC. Machine: ${r.machine.cpus} CPUs (${r.machine.cpuModel}), Node ${r.machine.node}${pgSettings(r.machine.postgres)}; load average ${r.machine.loadAverageStart.map((n) => n.toFixed(1)).join(' / ')} at the start, ` +
      `${r.machine.loadAverageEnd.map((n) => n.toFixed(1)).join(' / ')} at the end (with other work on the machine the figures are noisy). ` +
      `Server: WORKERS=${r.options.workers}, rate limits off${r.options.metrics ? ', METRICS on (GET /metrics scraped every 15 s)' : ''}; ${r.options.durationSeconds} s a run${sliceCount(r.options.durationSeconds) > 1 ? `, in ${sliceCount(r.options.durationSeconds)} slices taking turns with the ceiling's` : ''}${r.options.fileCache ? ", the database read through the OS's cache before each scenario" : ''}${r.options.warmupSeconds ? `, after ${r.options.warmupSeconds} s of the scenario's requests on each server, not measured` : ''}; the load generator shares the machine. ` +
      `CPU ms/req: CPU time the server's processes${postgres ? ", PostgreSQL's backends serving them" : ''} (or the ceiling's) spent per answered request, which other load on the machine disturbs less than req/s.`,
    '',
    `Dataset: ${int(r.dataset.summary.posts)} posts, ${int(r.dataset.summary.tags)} tags (${int(r.dataset.summary.postTags)} links), ` +
      `${int(r.dataset.summary.users)} users, ${int(r.dataset.summary.likes)} likes, ${int(r.dataset.summary.comments)} comments, ${int(r.dataset.summary.pools)} pools; ` +
      `${size(r.dataset.bytes)} on disk; generated in ${r.dataset.generationSeconds.toFixed(0)} s` +
      `${r.dataset.generationCpuSeconds === null ? '' : ` (${r.dataset.generationCpuSeconds.toFixed(0)} s of CPU in the generating process)`}` +
      `${r.dataset.reused ? ', reused' : ''}.`,
    '',
    `| Scenario | Conns | req/s | p50 ms | p99 ms | Errors | Ceiling req/s | Ours/ceiling | CPU ms/req ours${postgres ? ' / PostgreSQL' : ''} / ceiling | Check (${at} conns) |`,
    '|---|--:|--:|--:|--:|--:|--:|--:|--:|---|',
  ];
  const byName = new Map(r.checks.map((c) => [c.name, c]));
  for (const s of r.scenarios) {
    for (const run of s.runs) {
      let check = '';
      if (run.connections === at) {
        const parts = [byName.get(`${s.name} p99`), byName.get(`${s.name} ceiling`), byName.get(`${s.name} errors`)]
          .filter((c): c is Check => c !== undefined)
          .map((c) => `${c.name.slice(s.name.length + 1)} ${c.target.replace(` at ${at} conns`, '')}: ${mark(c.pass)}`);
        check = parts.join('; ');
      }
      lines.push(
        `| ${s.name} | ${run.connections} | ${int(run.ours.requestsPerSecond)} | ${ms(run.ours.latencyMs.p50)} | ${ms(run.ours.latencyMs.p99)} | ` +
          `${run.ours.errors} | ${int(run.ceiling.requestsPerSecond)} | ${pct(run.ratio)} | ${cpu(run.ours)}${postgres ? ` / ${cpuMs(run.ours.databaseCpuMsPerRequest)}` : ''} / ${cpu(run.ceiling)} | ${check} |`,
      );
    }
  }
  lines.push('');
  lines.push(
    `One request at a time (the ${r.scenarios[0]?.sampleBytes.count ?? 0} sample requests before the load), median ms: ` +
      r.scenarios.map((s) => `${s.name} ${ms(s.sampleMs.median)}`).join(', ') +
      '.',
  );
  if (r.upload) {
    const u = r.upload;
    const upCheck = byName.get('upload errors');
    lines.push(
      `Uploads: ${u.uploads} small PNGs one at a time, ${u.ok} accepted; latency p50 ${ms(u.latencyMs.p50)} ms, p99 ${ms(u.latencyMs.p99)} ms; ` +
        `${u.uploadsPerSecond.toFixed(1)} uploads/s${upCheck ? ` (errors: ${mark(upCheck.pass)})` : ''}.`,
    );
  }
  if (r.server.restartedAfter.length) {
    lines.push(
      `The server was restarted ${r.server.restartedAfter.length} time(s), still busy a minute after ` +
        `${r.server.restartedAfter.join('; ')} with requests the load generator had given up on (timeouts).`,
    );
  }
  const rss = byName.get('peak RSS');
  lines.push(
    `Peak RSS of the server: ${r.server.peakRssBytes === null ? 'not measured' : mb(r.server.peakRssBytes)} over ${r.server.processes} process${r.server.processes === 1 ? '' : 'es'}` +
      `${rss ? ` (target ${rss.target}: ${mark(rss.pass)})` : ''}.`,
  );
  const ready = byName.get('start to /readyz');
  if (ready)
    lines.push(
      `From its start to /readyz 200: ${ready.value} (target ${ready.target}: ${mark(ready.pass)})` +
        `${typeof r.server.firstListSeconds === 'number' ? `; to the first page of the post list: ${r.server.firstListSeconds.toFixed(1)} s` : ''}.`,
    );
  const laps = [...r.scenarios.map((s) => [s.name, s.peakRssBytes] as const), ...(r.upload ? [['uploads', r.upload.peakRssBytes] as const] : [])].filter(
    (l): l is readonly [string, number] => typeof l[1] === 'number' && l[1] > 0,
  );
  if (laps.length) lines.push(`Peak RSS while each ran: ${laps.map(([name, bytes]) => `${name} ${mb(bytes)}`).join(', ')}.`);
  const failed = r.checks.filter((c) => !c.pass);
  lines.push(
    `Targets: ${r.checks.length - failed.length} of ${r.checks.length} checks pass — ${failed.length === 0 ? 'PASS' : `FAIL (${failed.map((c) => c.name).join(', ')})`}.`,
  );
  lines.push('');
  return lines.join('\n');
}

/**
 * Writes the run as `<timestamp>-<kind>.json` and `.md`, and again as `latest-<kind>.json` and
 * `.md`; returns their paths. Under bench/results/ git keeps only the latest-* files (see
 * .gitignore): a run then changes two tracked files instead of adding two, and the history of
 * each engine's figures is the history of those files.
 */
export function writeReport(r: Report, outDir: string): { json: string; markdown: string; latest: string; latestJson: string } {
  return writeResult(outDir, r.startedAt, r.kind, r, markdown(r));
}

/** Writes `<timestamp>-<name>` and `latest-<name>` (.json, .md); returns their paths. */
export function writeResult(outDir: string, startedAt: string, name: string, data: unknown, md: string) {
  fs.mkdirSync(outDir, { recursive: true });
  const stamp = startedAt.replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  const base = path.join(outDir, `${stamp}-${name}`);
  const json = `${JSON.stringify(data, null, 2)}\n`;
  fs.writeFileSync(`${base}.json`, json);
  fs.writeFileSync(`${base}.md`, md);
  const latest = path.join(outDir, `latest-${name}.md`);
  const latestJson = path.join(outDir, `latest-${name}.json`);
  fs.writeFileSync(latest, md);
  fs.writeFileSync(latestJson, json);
  formatLikeTheRepo([latest, latestJson]);
  return { json: `${base}.json`, markdown: `${base}.md`, latest, latestJson };
}

/**
 * The latest results are committed, and `npm test` holds committed files to biome's format (its
 * tables aligned, short arrays on one line): format them as they are written. Files outside the
 * project (a smoke run's temporary directory) are not biome's to check and stay as written.
 */
function formatLikeTheRepo(files: string[]): void {
  const ours = files.filter((f) => !path.relative(ROOT, f).startsWith('..'));
  if (ours.length === 0) return;
  try {
    execFileSync(path.join(ROOT, 'node_modules', '.bin', 'biome'), ['format', '--write', ...ours], { stdio: 'ignore', timeout: 60_000 });
  } catch (err) {
    console.warn(`bench: could not format ${ours.join(', ')} with biome (${(err as Error).message}); run npx biome format --write on them before committing`);
  }
}

/** Replaces what lies between the page's bench markers for `kind` with the table; false when the page has no such markers. */
export function updateDocs(pagePath: string, md: string, kind: DocSection = 'sqlite'): boolean {
  const text = fs.readFileSync(pagePath, 'utf8');
  const markers = docMarkers(kind);
  const start = text.indexOf(markers.start);
  const end = text.indexOf(markers.end);
  if (start < 0 || end < start) return false;
  const next = `${text.slice(0, start + markers.start.length)}\n${md.trimEnd()}\n${text.slice(end)}`;
  if (next !== text) fs.writeFileSync(pagePath, next);
  return true;
}

/** A few lines for the console: one per run, then the targets. */
export function consoleSummary(r: Report): string {
  const out = r.scenarios.flatMap((s) =>
    s.runs.map(
      (run) =>
        `${s.name.padEnd(14)} c=${String(run.connections).padEnd(3)} ${int(run.ours.requestsPerSecond).padStart(7)} req/s  p50 ${ms(run.ours.latencyMs.p50).padStart(6)} ms  ` +
        `p99 ${ms(run.ours.latencyMs.p99).padStart(6)} ms  errors ${run.ours.errors}  ceiling ${int(run.ceiling.requestsPerSecond).padStart(7)} req/s  ${pct(run.ratio)}`,
    ),
  );
  if (r.upload)
    out.push(
      `upload         ${r.upload.uploads} uploads  p50 ${ms(r.upload.latencyMs.p50)} ms  p99 ${ms(r.upload.latencyMs.p99)} ms  ${r.upload.uploadsPerSecond.toFixed(1)}/s  errors ${r.upload.errors}`,
    );
  out.push(
    `peak RSS ${r.server.peakRssBytes === null ? 'n/a' : mb(r.server.peakRssBytes)}; dataset ${size(r.dataset.bytes)}, generated in ${r.dataset.generationSeconds.toFixed(1)} s`,
  );
  if (r.checks.length) {
    out.push('targets check:');
    for (const c of r.checks) out.push(`  ${mark(c.pass)}  ${c.name.padEnd(22)} ${c.value.padStart(9)}  (target ${c.target})`);
  }
  return out.join('\n');
}
