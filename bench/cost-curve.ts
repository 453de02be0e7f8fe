import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Report } from './report.ts';

/**
 * `npm run bench:curve -- <report.json>...` (issue 59, point 4): one table of every scenario
 * across runs of `npm run bench` at different sizes (100k, 1M, 10M posts), so a reader sees what
 * grows with the board and what does not: CPU ms a request, p99 and share of the ceiling at the
 * checked connections, and the server's peak RSS while the scenario ran. Runs are ordered by
 * size; a scenario missing from a run shows a dash.
 */

const int = (n: number) => n.toLocaleString('en');
const size = (posts: number) => (posts >= 1_000_000 ? `${posts / 1_000_000}M` : posts >= 1000 ? `${posts / 1000}k` : String(posts));

export function costCurve(reports: Report[]): string {
  const runs = [...reports].sort((a, b) => a.dataset.summary.posts - b.dataset.summary.posts);
  const names = [...new Set(runs.flatMap((r) => r.scenarios.map((s) => s.name)))];
  const head = runs.map((r) => size(r.dataset.summary.posts));
  const cell = (r: Report, name: string) => {
    const s = r.scenarios.find((x) => x.name === name);
    const run = s?.runs.find((x) => x.connections === 16) ?? s?.runs[0];
    if (!s || !run) return '-';
    const cpu = run.ours.serverCpuMsPerRequest;
    const rss = s.peakRssBytes ? `${Math.round(s.peakRssBytes / 2 ** 20)}` : '-';
    return `${cpu === undefined || cpu === null ? '-' : cpu.toFixed(2)} / ${run.ours.latencyMs.p99} / ${Math.round(run.ratio * 100)}% / ${rss}`;
  };
  const lines = [
    `| Scenario | ${head.join(' | ')} |`,
    `|---|${head.map(() => '--:').join('|')}|`,
    ...names.map((n) => `| ${n} | ${runs.map((r) => cell(r, n)).join(' | ')} |`),
  ];
  const upload = (r: Report) => (r.upload ? `p99 ${Math.round(r.upload.latencyMs.p99)} ms` : '-');
  lines.push(`| uploads | ${runs.map(upload).join(' | ')} |`);
  lines.push(`| peak RSS, whole run (MB) | ${runs.map((r) => (r.server.peakRssBytes ? int(Math.round(r.server.peakRssBytes / 2 ** 20)) : '-')).join(' | ')} |`);
  const seconds = (n: number | null | undefined) => (typeof n === 'number' ? n.toFixed(1) : '-');
  lines.push(`| start to /readyz (s) | ${runs.map((r) => seconds(r.server.readySeconds)).join(' | ')} |`);
  lines.push(`| start to the first list page (s) | ${runs.map((r) => seconds(r.server.firstListSeconds)).join(' | ')} |`);
  lines.push(`| dataset on disk (GB) | ${runs.map((r) => (r.dataset.bytes / 1e9).toFixed(1)).join(' | ')} |`);
  return `${lines.join('\n')}\n`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const files = process.argv.slice(2);
  if (files.length === 0) {
    console.error('Usage: npm run bench:curve -- <bench report .json>...');
    process.exit(2);
  }
  console.log('Each cell: CPU ms a request / p99 ms / share of the ceiling / peak RSS MB, at 16 connections.\n');
  process.stdout.write(costCurve(files.map((f) => JSON.parse(fs.readFileSync(f, 'utf8')) as Report)));
}
