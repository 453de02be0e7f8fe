import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { copySqliteDataset, prepareDataset } from './dataset.ts';
import { updateDocs, writeResult } from './report.ts';
import { whole } from './run.ts';
import { Prng, buildScenarios, seedOf } from './scenarios.ts';
import { ROOT, ServerUnderTest } from './server.ts';
import { tagRelationsMarkdown, tagRelationsChecks, type TagRelationsReport } from './tag-relations-report.ts';
import { createModerator, login, pickTags, readLoad, timeBackfill, timeUploadCost } from './tag-relations-steps.ts';

/**
 * `npm run bench:tags` (issue 22): on a copy of the million-post SQLite dataset, times the backfill
 * of an implication whose antecedent has about 100,000 posts while a read load runs (and the same
 * load without it), then what 30 tags with 10 implications add to an upload. Writes
 * bench/results/latest-tag-relations.{json,md} and its section of docs/benchmarks.md.
 */

export interface TagRelationsOptions {
  posts: number;
  seed: number;
  workers: number;
  connections: number;
  /** Read scenarios (bench/scenarios.ts) whose paths make the read load. */
  scenarios: string[];
  /** Seconds of read load without a backfill. */
  baselineSeconds: number;
  /** The backfill is given up on (and reported unfinished) after this. */
  maxBackfillSeconds: number;
  /** The antecedent: the tag with the fewest posts among those with at least this many. */
  antecedentPosts: number;
  /** Uploads of each kind (no tags; 30 tags). */
  uploads: number;
  uploadSeconds: number;
  outDir: string;
  docs: boolean;
  docsPath: string;
  dataRoot: string;
  /** Where the dataset's copy is made (and removed). */
  tmpRoot: string;
  log: (line: string) => void;
}

export function defaultTagRelationsOptions(): TagRelationsOptions {
  return {
    posts: 1_000_000,
    seed: 1,
    workers: 2,
    connections: 16,
    scenarios: ['newest', 'tag-common', 'search'],
    baselineSeconds: 10,
    maxBackfillSeconds: 180,
    antecedentPosts: 100_000,
    uploads: 100,
    uploadSeconds: 300,
    outDir: path.join(ROOT, 'bench', 'results'),
    docs: true,
    docsPath: path.join(ROOT, 'docs', 'benchmarks.md'),
    dataRoot: path.join(ROOT, 'bench', 'data'),
    tmpRoot: os.tmpdir(),
    log: (line) => console.log(line),
  };
}

export async function runTagRelations(given: Partial<TagRelationsOptions> = {}): Promise<TagRelationsReport> {
  const o = { ...defaultTagRelationsOptions(), ...given };
  const startedAt = new Date().toISOString();
  const loadAverageStart = os.loadavg();
  const dataset = await prepareDataset({ posts: o.posts, seed: o.seed, tagsPerPost: 15, dataRoot: o.dataRoot, databaseUrl: '', log: o.log });
  const dir = fs.mkdtempSync(path.join(o.tmpRoot, 'ib-tag-relations-'));
  try {
    const t = performance.now();
    const copy = copySqliteDataset(dataset, dir);
    o.log(`dataset: copied to ${dir} in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    const tags = pickTags(copy, Math.min(o.antecedentPosts, Math.floor(o.posts / 10)), 20);
    const moderator = createModerator(copy.dataDir);
    const paths = (await buildScenarios(copy, o.seed)).filter((s) => o.scenarios.includes(s.name)).flatMap((s) => s.paths);
    if (paths.length === 0) throw new Error(`no read scenario among ${o.scenarios.join(', ')}`);
    const rng = new Prng(seedOf('tag-relations'));
    const load = { connections: o.connections, nextPath: () => paths[rng.int(paths.length)] };

    const server = new ServerUnderTest({ dataDir: copy.dataDir, databaseUrl: '', workers: o.workers }, o.log);
    await server.start();
    try {
      const cookie = await login(server.origin, moderator);
      await readLoad(server, load, 3);
      await server.settle('the warm-up');
      const baseline = await readLoad(server, load, o.baselineSeconds);
      o.log(`reads without a backfill: ${Math.round(baseline.requestsPerSecond)} req/s, p99 ${baseline.latencyMs.p99} ms`);
      await server.settle('the baseline');
      o.log(`backfill: ${tags.antecedent.name} (${tags.antecedent.posts.toLocaleString('en')} posts) -> a new tag`);
      const backfill = await timeBackfill(server, cookie, tags.antecedent, load, o.maxBackfillSeconds, o.log);
      o.log(
        `backfill: ${backfill.state} in ${backfill.seconds.toFixed(1)} s (${Math.round(backfill.postsPerSecond)} posts/s); ` +
          `reads meanwhile ${Math.round(backfill.reads.requestsPerSecond)} req/s, p99 ${backfill.reads.latencyMs.p99} ms; counts ${JSON.stringify(backfill.counts)}`,
      );
      await server.settle('the backfill');
      const uploads = await timeUploadCost(server, cookie, tags.common, o.uploads, 4, Date.now() + o.uploadSeconds * 1000);
      o.log(`uploads: median ${uploads.plain.latencyMs.p50.toFixed(1)} ms without tags, ${uploads.tagged.latencyMs.p50.toFixed(1)} ms with 30`);
      const base = {
        startedAt,
        finishedAt: new Date().toISOString(),
        options: {
          posts: o.posts,
          workers: o.workers,
          connections: o.connections,
          scenarios: o.scenarios,
          baselineSeconds: o.baselineSeconds,
          uploads: o.uploads,
        },
        machine: {
          cpus: os.availableParallelism(),
          cpuModel: os.cpus()[0]?.model ?? 'unknown',
          node: process.version,
          loadAverageStart,
          loadAverageEnd: os.loadavg(),
        },
        dataset: { name: dataset.name, posts: dataset.summary.posts },
        baseline,
        backfill,
        uploads,
      };
      const report: TagRelationsReport = { ...base, checks: tagRelationsChecks(base) };
      const md = tagRelationsMarkdown(report);
      const files = writeResult(o.outDir, startedAt, 'tag-relations', report, md);
      if (o.docs)
        o.log(
          updateDocs(o.docsPath, md, 'tag-relations') ? 'docs/benchmarks.md: tag relations section updated' : 'docs/benchmarks.md: no tag relations markers',
        );
      o.log(`${md}\nreport: ${files.latestJson}`);
      return report;
    } finally {
      await server.stop();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function parseTagRelationsArgs(argv: string[]): Partial<TagRelationsOptions> {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      posts: { type: 'string' },
      connections: { type: 'string' },
      workers: { type: 'string' },
      baseline: { type: 'string' },
      'max-backfill': { type: 'string' },
      uploads: { type: 'string' },
      scenarios: { type: 'string' },
      out: { type: 'string' },
      'no-docs': { type: 'boolean' },
    },
  });
  const out: Partial<TagRelationsOptions> = {
    posts: whole('posts', values.posts, 1000, 10_000_000),
    connections: whole('connections', values.connections, 1, 256),
    workers: whole('workers', values.workers, 1, 16),
    baselineSeconds: whole('baseline', values.baseline, 1, 120),
    maxBackfillSeconds: whole('max-backfill', values['max-backfill'], 5, 600),
    uploads: whole('uploads', values.uploads, 1, 1000),
    scenarios: values.scenarios?.split(',').map((s) => s.trim()),
    outDir: values.out === undefined ? undefined : path.resolve(values.out),
    docs: values['no-docs'] ? false : undefined,
  };
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined));
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  runTagRelations(parseTagRelationsArgs(process.argv.slice(2))).catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
