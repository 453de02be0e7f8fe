import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import v8 from 'node:v8';
import vm from 'node:vm';
import { testConfig } from '../src/config.ts';
import { systemClock } from '../src/core/deps.ts';
import { openDatabase } from '../src/db/database.ts';
import type { ListQuery } from '../src/search/list-query.ts';
import { createSearchEngine } from '../src/search/engine.ts';
import { prepareDataset } from './dataset.ts';
import { defaultOptions, whole } from './run.ts';
import { buildScenarios } from './scenarios.ts';

/**
 * `npm run bench:kept-bytes -- --posts N` (issue 59, point 3): the bytes each kind of kept set of
 * the search engine holds on the bench's dataset of N posts (built or reused as `npm run bench`
 * does: SQLite, or PostgreSQL with BENCH_DATABASE_URL), and per post. One engine, made as the
 * server's posts service makes it, is warmed as a worker is at start, then asked the first
 * `--pages` list pages of each scenario of the query language and the post list (a tag, two
 * tags, a title word, a likes order...), so the sets made on first use exist. Prints a table of
 * engine.memory(), and the process's RSS, V8 heap and array buffers (where typed arrays live)
 * before the engine, after warm() and after the pages.
 */

const USAGE = 'Usage: npm run bench:kept-bytes -- [--posts N] [--pages N] [--seed S]';
/** Pages are asked for at most this long, so a slow strategy cannot stretch the run. */
const PAGES_SECONDS = 120;

v8.setFlagsFromString('--expose-gc');
/** A full collection, so heap figures are what is kept, not garbage yet to go. */
const gc = vm.runInNewContext('gc') as () => void;

/** A /api/posts path of the bench's scenarios as the list query its route would make of it; null for other APIs. */
function listQuery(p: string): ListQuery | null {
  const url = new URL(p, 'http://bench');
  if (url.pathname !== '/api/posts') return null;
  const s = url.searchParams;
  const num = (name: string) => (s.has(name) ? Number(s.get(name)) : undefined);
  const text = (name: string) => s.get(name) ?? undefined;
  const q: ListQuery = {
    q: text('q'),
    offset: num('offset'),
    limit: num('limit'),
    tag: s.has('tag') ? s.getAll('tag') : undefined,
    search: text('search'),
    contentRating: text('contentRating') as ListQuery['contentRating'],
    minLikes: num('minLikes'),
    dateFrom: text('dateFrom'),
    dateTo: text('dateTo'),
    sortBy: text('sortBy') as ListQuery['sortBy'],
  };
  return Object.fromEntries(Object.entries(q).filter(([, v]) => v !== undefined)) as ListQuery;
}

const MIB = 1024 * 1024;
const mib = (bytes: number) => `${(bytes / MIB).toFixed(1)} MiB`;

function usage() {
  gc();
  const m = process.memoryUsage();
  return { rss: m.rss, heapUsed: m.heapUsed, arrayBuffers: m.arrayBuffers };
}

export async function keptBytes(o: { posts: number; pages: number; seed: number; log: (line: string) => void }) {
  const defaults = defaultOptions();
  const dataset = await prepareDataset({
    posts: o.posts,
    seed: o.seed,
    tagsPerPost: defaults.tagsPerPost,
    dataRoot: defaults.dataRoot,
    databaseUrl: defaults.databaseUrl,
    log: o.log,
  });
  const db = await openDatabase({ url: dataset.databaseUrl, dataDir: dataset.dataDir, schema: dataset.schema });
  try {
    const config = testConfig({ dataDir: dataset.dataDir, databaseUrl: dataset.databaseUrl });
    const posts = Number((await db.selectFrom('posts').select(db.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    const before = usage();
    const engine = createSearchEngine({ db, config, clock: systemClock });
    let started = performance.now();
    await engine.warm();
    o.log(`warm(): ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const warmed = usage();
    // Drawn after the warm-up, so what drawing them takes is not in its figures.
    const paths = (await buildScenarios(dataset, o.seed)).flatMap((s) => s.paths.slice(0, o.pages).map(listQuery));
    started = performance.now();
    let asked = 0;
    let failed = 0;
    for (const query of paths) {
      if (!query) continue;
      if (performance.now() - started > PAGES_SECONDS * 1000) {
        o.log(`pages: stopped after ${PAGES_SECONDS} s`);
        break;
      }
      try {
        await engine.page({ query, render: async (r) => ({ value: r.ids.length }) });
        asked++;
      } catch (err) {
        failed++;
        o.log(`page ${JSON.stringify(query)}: ${(err as Error).message}`);
      }
    }
    o.log(
      `pages: ${asked} of the list scenarios' first ${o.pages} each${failed ? ` (${failed} failed)` : ''} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    const memory = await engine.memory();
    const after = usage();
    const total = Object.values(memory).reduce((a, b) => a + b, 0);
    const perPost = (bytes: number) => (bytes / posts).toFixed(2);
    const rows = [...Object.entries(memory), ['total', total] as const];
    const lines = [
      `Kept sets at ${posts.toLocaleString('en')} posts (${dataset.kind}, ${dataset.name}):`,
      '',
      '| kind | bytes | bytes a post |',
      '|---|---:|---:|',
      ...rows.map(([kind, bytes]) => `| ${kind} | ${bytes.toLocaleString('en')} | ${perPost(bytes)} |`),
      '',
      '| process (after a full GC) | before the engine | after warm() | after the pages |',
      '|---|---:|---:|---:|',
      ...(['rss', 'heapUsed', 'arrayBuffers'] as const).map((k) => `| ${k} | ${mib(before[k])} | ${mib(warmed[k])} | ${mib(after[k])} |`),
    ];
    for (const line of lines) o.log(line);
    return { posts, memory, total, before, warmed, after };
  } finally {
    await db.close();
  }
}

async function main(): Promise<void> {
  let o: { posts: number; pages: number; seed: number };
  try {
    const { values } = parseArgs({
      args: process.argv.slice(2),
      strict: true,
      options: { posts: { type: 'string' }, pages: { type: 'string' }, seed: { type: 'string' } },
    });
    o = {
      posts: whole('posts', values.posts, 100, 10_000_000) ?? 100_000,
      pages: whole('pages', values.pages, 0, 1000) ?? 10,
      seed: whole('seed', values.seed, 0, 2 ** 32 - 1) ?? defaultOptions().seed,
    };
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  await keptBytes({ ...o, log: (line) => console.log(line) });
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
