import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { copySqliteDataset, prepareDataset } from './dataset.ts';
import { runLoad, type LoadResult } from './load.ts';
import { metricsSettings, scrapeEvery } from './metrics-scrape.ts';
import { measured, whole } from './run.ts';
import { percentile } from './uploads.ts';
import { Prng, buildScenarios, seedOf } from './scenarios.ts';
import { ROOT, ServerUnderTest } from './server.ts';

/**
 * `npm run bench:metrics-cost` (issue 61 point 4): what METRICS on costs a request. Two servers on
 * copies of one SQLite dataset, one with metrics on (behind a token, scraped as Prometheus would)
 * and one with them off, take turns in short slices of each scenario's run, the order switched
 * every slice, so both meet the same moments of a machine whose speed drifts by more than the
 * difference measured. Separate runs of `npm run bench` with and without `--metrics` differed by
 * 30-50% in CPU a request from one run to the next.
 */

const SCENARIOS = ['newest', 'tag-common', 'post-detail', 'q-or', 'danbooru-posts'];

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      posts: { type: 'string' },
      slices: { type: 'string' },
      seconds: { type: 'string' },
      scenarios: { type: 'string' },
      workers: { type: 'string' },
      // Both servers with metrics off: what the method itself shows when there is no difference.
      control: { type: 'boolean' },
    },
  });
  const posts = whole('posts', values.posts, 100, 10_000_000) ?? 100_000;
  const slices = whole('slices', values.slices, 2, 100) ?? 10;
  const seconds = whole('seconds', values.seconds, 1, 60) ?? 2;
  const workers = whole('workers', values.workers, 1, 16) ?? 2;
  const names = values.scenarios?.split(',') ?? SCENARIOS;
  const log = (line: string) => console.log(line);
  const dataset = await prepareDataset({ posts, seed: 1, tagsPerPost: 15, dataRoot: path.join(ROOT, 'bench', 'data'), databaseUrl: '', log });
  const scenarios = (await buildScenarios(dataset, 1)).filter((s) => names.includes(s.name));
  const copyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ib-metrics-cost-'));
  const copy = copySqliteDataset(dataset, copyDir);
  const metrics = metricsSettings();
  const off = new ServerUnderTest({ dataDir: dataset.dataDir, databaseUrl: '', workers }, log);
  const on = new ServerUnderTest({ dataDir: copy.dataDir, databaseUrl: '', workers, env: values.control ? {} : metrics.env }, log);
  const rows: { scenario: string; off: number; on: number; change: number; median: number }[] = [];
  const pairs: number[] = [];
  try {
    await Promise.all([off.start(), on.start()]);
    const scraper = values.control ? null : scrapeEvery(() => on.origin, metrics.token);
    for (const s of scenarios) {
      const rng = new Prng(seedOf(`metrics-cost/${s.name}`));
      const load = (server: ServerUnderTest, durationSeconds: number) =>
        measured(server.pid, () => runLoad({ origin: server.origin, connections: 16, durationSeconds, nextPath: () => rng.pick(s.paths) }));
      await load(off, 3);
      await load(on, 3);
      const runs: Record<'off' | 'on', LoadResult[]> = { off: [], on: [] };
      for (let i = 0; i < slices; i++) {
        const order = i % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const);
        for (const which of order) runs[which].push(await load(which === 'on' ? on : off, seconds));
      }
      const cpu = (xs: LoadResult[]) =>
        xs.reduce((a, r) => a + (r.serverCpuMsPerRequest ?? 0) * r.requests, 0) /
        Math.max(
          1,
          xs.reduce((a, r) => a + r.requests, 0),
        );
      // Each turn's pair of slices, side by side: a moment the machine slowed shows in one pair, not in the median.
      const turns = runs.on.map((r, i) => cpu([r]) / cpu([runs.off[i]]) - 1);
      pairs.push(...turns);
      const row = { scenario: s.name, off: cpu(runs.off), on: cpu(runs.on), change: cpu(runs.on) / cpu(runs.off) - 1, median: median(turns) };
      rows.push(row);
      log(
        `${s.name.padEnd(14)} CPU ms a request: off ${row.off.toFixed(3)}, on ${row.on.toFixed(3)} (${pct(row.change)}; median of the turns ${pct(row.median)})`,
      );
    }
    const scraped = await scraper?.stop();
    if (scraped) log(`metrics: ${scraped.scrapes} scrapes answered (${scraped.lastBytes} bytes the last), ${scraped.failures} not`);
  } finally {
    await Promise.all([off.stop(), on.stop()]);
    fs.rmSync(copyDir, { recursive: true, force: true });
  }
  const mean = rows.reduce((a, r) => a + r.change, 0) / Math.max(1, rows.length);
  log(
    `mean change of CPU a request with metrics on: ${pct(mean)}, median of every turn ${pct(median(pairs))} (${slices} slices of ${seconds} s each way, ${posts} posts)`,
  );
}

const pct = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;

const median = (xs: number[]) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
