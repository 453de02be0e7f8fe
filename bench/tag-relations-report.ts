import type { LoadResult } from './load.ts';
import { int, mark, ms, type Check } from './report.ts';
import type { BackfillResult, UploadCost } from './tag-relations-steps.ts';

/** Issue 22's speed targets at a million posts on SQLite. */
export const TAG_TARGETS = { backfillSeconds: 60, readP99Ms: 100, uploadExtraMs: 20 } as const;

export interface TagRelationsReport {
  startedAt: string;
  finishedAt: string;
  options: { posts: number; workers: number; connections: number; scenarios: string[]; baselineSeconds: number; uploads: number };
  machine: { cpus: number; cpuModel: string; node: string; loadAverageStart: number[]; loadAverageEnd: number[] };
  dataset: { name: string; posts: number };
  baseline: LoadResult;
  backfill: BackfillResult;
  uploads: UploadCost;
  checks: Check[];
}

/** What an upload with 30 tags costs over one without: the medians' difference. */
export const uploadExtraMs = (u: UploadCost) => u.tagged.latencyMs.p50 - u.plain.latencyMs.p50;

export function tagRelationsChecks(r: Omit<TagRelationsReport, 'checks'>): Check[] {
  const b = r.backfill;
  const extra = uploadExtraMs(r.uploads);
  return [
    {
      name: 'backfill time',
      target: `done in < ${TAG_TARGETS.backfillSeconds} s`,
      value: `${b.state}, ${b.seconds.toFixed(1)} s`,
      pass: b.state === 'done' && b.seconds < TAG_TARGETS.backfillSeconds,
    },
    { name: 'backfill result', target: 'consequent count = antecedent count', value: `${b.counts.consequent} / ${b.counts.antecedent}`, pass: b.verified },
    {
      name: 'reads p99 during the backfill',
      target: `< ${TAG_TARGETS.readP99Ms} ms`,
      value: `${ms(b.reads.latencyMs.p99)} ms`,
      pass: b.reads.latencyMs.p99 < TAG_TARGETS.readP99Ms,
    },
    { name: 'read errors', target: '0', value: String(b.reads.errors + r.baseline.errors), pass: b.reads.errors + r.baseline.errors === 0 },
    { name: 'upload extra (medians)', target: `< ${TAG_TARGETS.uploadExtraMs} ms`, value: `${ms(extra)} ms`, pass: extra < TAG_TARGETS.uploadExtraMs },
    {
      name: 'uploads accepted, implied tags given',
      target: 'all',
      value: `${r.uploads.plain.ok + r.uploads.tagged.ok} of ${r.uploads.plain.uploads + r.uploads.tagged.uploads}, ${r.uploads.impliedGiven ? 'given' : 'missing'}`,
      pass: r.uploads.plain.ok === r.uploads.plain.uploads && r.uploads.tagged.ok === r.uploads.tagged.uploads && r.uploads.impliedGiven,
    },
  ];
}

const cpu = (n: number | null | undefined) => (n === null || n === undefined ? 'n/a' : n.toFixed(2));
const avg = (xs: number[]) => xs.map((n) => n.toFixed(1)).join(' / ');

function readRow(what: string, l: LoadResult): string {
  return `| ${what} | ${l.durationSeconds.toFixed(1)} | ${int(l.requestsPerSecond)} | ${ms(l.latencyMs.p50)} | ${ms(l.latencyMs.p99)} | ${ms(l.latencyMs.max)} | ${l.errors} | ${cpu(l.serverCpuMsPerRequest)} |`;
}

export function tagRelationsMarkdown(r: TagRelationsReport): string {
  const b = r.backfill;
  const u = r.uploads;
  const failed = r.checks.filter((c) => !c.pass);
  const upRow = (what: string, s: UploadCost['plain']) =>
    `| ${what} | ${s.ok} of ${s.uploads} | ${ms(s.latencyMs.p50)} | ${ms(s.latencyMs.p99)} | ${ms(s.latencyMs.max)} | ${cpu(s.serverCpuMsPerUpload)} |`;
  return [
    `### SQLite, ${int(r.dataset.posts)} posts`,
    '',
    `Run at ${r.startedAt.slice(0, 16).replace('T', ' ')} UTC. Machine: ${r.machine.cpus} CPUs (${r.machine.cpuModel}), Node ${r.machine.node}; load average ${avg(r.machine.loadAverageStart)} at the start, ` +
      `${avg(r.machine.loadAverageEnd)} at the end. Server: ${r.options.workers} workers, rate limits off, on a copy of the dataset; ` +
      `the load generator shares the machine. Reads: ${r.options.scenarios.join(', ')} mixed, ${r.options.connections} connections.`,
    '',
    `Backfill: \`${b.antecedent}\` (${int(b.antecedentPosts)} posts) -> a new tag, answered ${b.status}; the job ${b.state} ` +
      `${int(b.jobDone)} of ${int(b.jobTotal)} posts in ${b.seconds.toFixed(1)} s from the POST (${int(b.postsPerSecond)} posts/s)` +
      `${b.error ? `: ${b.error}` : ''}. Afterwards the new tag has ${int(b.counts.consequent)} posts, the antecedent ${int(b.counts.antecedent)}.`,
    '',
    '| Reads | Seconds | req/s | p50 ms | p99 ms | max ms | Errors | CPU ms/req |',
    '|---|--:|--:|--:|--:|--:|--:|--:|',
    readRow('without a backfill', r.baseline),
    readRow('during the backfill', b.reads),
    '',
    `Uploads: small distinct PNGs one at a time, the two kinds taking turns in 4 rounds; "30 tags": ${u.tags.length} tags, ` +
      `of which 10 imply another (${u.implications[0]}, ...), ${u.tags.length - 10} used ones of the dataset. CPU ms/upload: the server's processes.`,
    '',
    '| Upload | Accepted | p50 ms | p99 ms | max ms | CPU ms/upload |',
    '|---|--:|--:|--:|--:|--:|',
    upRow('no tags', u.plain),
    upRow('30 tags, 10 implications', u.tagged),
    '',
    `Difference of the medians: ${ms(uploadExtraMs(u))} ms; of the p99s: ${ms(u.tagged.latencyMs.p99 - u.plain.latencyMs.p99)} ms.`,
    '',
    '| Check | Target | Value | |',
    '|---|---|---|---|',
    ...r.checks.map((c) => `| ${c.name} | ${c.target} | ${c.value} | ${mark(c.pass)} |`),
    '',
    `Targets: ${failed.length === 0 ? 'PASS' : `FAIL (${failed.map((c) => c.name).join(', ')})`}.`,
    '',
  ].join('\n');
}
