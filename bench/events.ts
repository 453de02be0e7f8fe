import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { openStream, type SseStream } from '../test/sse.ts';
import { startCeiling, type Sizes } from './ceiling.ts';
import { prepareDataset } from './dataset.ts';
import { assertLoopback, runLoad, type LoadResult } from './load.ts';
import { treeCpuSeconds, processTree, treeRss } from './rss.ts';
import { TARGETS } from './report.ts';
import { measured, sampleSizes, whole } from './run.ts';
import { Prng, buildScenarios, seedOf, type Scenario } from './scenarios.ts';
import { ROOT, ServerUnderTest, type Child } from './server.ts';
import { deletePosts, makePngs, percentile, signIn } from './uploads.ts';

/**
 * `npm run bench:events` (issue 60): a board of `posts` posts with `streams` event streams open,
 * each following a different query taken from the read scenarios' own (a tag, two tags, the query
 * language's and/or/not, wildcards, a user's posts). New posts are uploaded at a steady rate, with
 * the tags of existing posts. Measured: when each new post reaches each stream that matches it
 * (from its upload's answer, and from the upload's start: the commit lies between), that every
 * stream got exactly the posts its query's list holds, the read scenarios beside it against the
 * same scenarios with no stream open (p99, CPU a request, share of the ceiling), and the server's
 * memory and idle CPU a stream.
 */

export interface EventsBenchOptions {
  posts: number;
  streams: number;
  /**
   * New posts a second while the read scenarios run: 0.2 is 17,280 a day, about ten times what
   * Danbooru takes in a day, and a post at a time for the streams (one post a batch, the most
   * searches a post).
   */
  rate: number;
  /** Read scenarios run with and without the streams. */
  scenarios: string[];
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
  workers: number;
  databaseUrl: string;
  outDir: string;
  log: (line: string) => void;
}

const DEFAULTS: EventsBenchOptions = {
  posts: 1_000_000,
  streams: 1_000,
  rate: 0.2,
  scenarios: ['newest', 'tag-common', 'q-or', 'q-mixed', 'post-detail'],
  connections: 16,
  durationSeconds: 10,
  warmupSeconds: 3,
  workers: 2,
  databaseUrl: process.env.BENCH_DATABASE_URL ?? '',
  outDir: path.join(ROOT, 'bench', 'results'),
  log: (line) => console.log(line),
};

/** The read scenarios whose paths give the streams their queries: what people follow. */
const QUERY_SOURCES = ['tag-common', 'tag-pair', 'tag-rare', 'q-not-common', 'q-or', 'q-mixed', 'q-wildcard', 'q-nested', 'q-user'];
/** What a stream takes of a list's parameters (the rest are a page's: offset, order). */
const STREAM_PARAMS = new Set(['q', 'tag', 'search', 'uploader', 'contentRating', 'minLikes', 'dateFrom', 'dateTo']);

/** `streams` distinct stream queries (a list path's filters), drawn in turn from each source scenario. */
export function streamQueries(scenarios: Scenario[], count: number): string[] {
  const pools = QUERY_SOURCES.map((name) => scenarios.find((s) => s.name === name)?.paths ?? []).map((paths) => [
    ...new Set(
      paths.map((p) => {
        const params = new URLSearchParams(p.slice(p.indexOf('?') + 1));
        const kept = new URLSearchParams([...params].filter(([k]) => STREAM_PARAMS.has(k)));
        // A query stream is asked for by its `q`: an empty one with the list's filters follows them alone.
        if (!kept.has('q')) kept.set('q', '');
        return kept.toString();
      }),
    ),
  ]);
  const out = new Set<string>();
  for (let i = 0; out.size < count && pools.some((p) => i < p.length); i++) {
    for (const pool of pools) if (i < pool.length && out.size < count) out.add(pool[i]);
  }
  return [...out];
}

interface Upload {
  id: number;
  startedAt: number;
  answeredAt: number;
}

interface ReadRun {
  scenario: string;
  ours: LoadResult;
  ceiling: LoadResult;
  share: number;
  ceilingTarget: number | null;
  p99TargetMs: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The median of a few RSS readings over a second or two (one reading catches a collection mid-way). */
async function steadyRss(pid: number): Promise<number> {
  const xs: number[] = [];
  for (let i = 0; i < 5; i++) {
    xs.push(treeRss(processTree(pid)));
    await sleep(400);
  }
  return xs.sort((a, b) => a - b)[2];
}

/** Each read scenario on ours and on the ceiling, one after the other. */
async function readRuns(
  server: ServerUnderTest,
  ceiling: Child,
  scenarios: Scenario[],
  sizes: Sizes,
  o: EventsBenchOptions,
  phase: string,
): Promise<ReadRun[]> {
  const out: ReadRun[] = [];
  for (const s of scenarios) {
    const rng = new Prng(seedOf(`events/${phase}/${s.name}`));
    const common = { connections: o.connections, durationSeconds: o.durationSeconds, maxRequests: o.durationSeconds * 200_000 };
    const ours = await measured(server.pid, () => runLoad({ ...common, origin: server.origin, nextPath: () => rng.pick(s.paths) }));
    const count = sizes[s.name].length;
    const top = await measured(ceiling.pid, () => runLoad({ ...common, origin: ceiling.origin, nextPath: () => `/${s.name}/${rng.int(count)}` }));
    const share = ours.requestsPerSecond / Math.max(1e-9, top.requestsPerSecond);
    out.push({ scenario: s.name, ours, ceiling: top, share, ceilingTarget: s.ceilingTarget, p99TargetMs: s.p99TargetMs ?? TARGETS.p99Ms });
    o.log(
      `${phase.padEnd(12)} ${s.name.padEnd(12)} ${Math.round(ours.requestsPerSecond)} req/s, p99 ${ours.latencyMs.p99} ms, ` +
        `${ours.serverCpuMsPerRequest?.toFixed(2)} ms CPU a request, ${(share * 100).toFixed(1)}% of the ceiling, errors ${ours.errors}`,
    );
  }
  return out;
}

/** Uploads a post every 1/rate s until `signal`, each with the tags and rating of an existing post; at most 4 at once. */
async function uploadSteadily(origin: string, cookie: string, sources: { tags: string; rating: string }[], rate: number, signal: AbortSignal) {
  const uploads: Upload[] = [];
  const failures: string[] = [];
  const pngs = await makePngs(Math.ceil(rate * 600) + 10, 64);
  const inFlight = new Set<Promise<void>>();
  const started = performance.now();
  for (let i = 0; !signal.aborted && i < pngs.length; i++) {
    const due = started + (i * 1000) / rate;
    if (due > performance.now()) await sleep(due - performance.now());
    if (signal.aborted) break;
    if (inFlight.size >= 4) await Promise.race(inFlight);
    const source = sources[i % sources.length];
    const form = new FormData();
    form.append('title', `live ${i + 1}`);
    form.append('tags', source.tags);
    form.append('contentRating', source.rating);
    form.append('file', new Blob([new Uint8Array(pngs[i])], { type: 'image/png' }), `live-${i + 1}.png`);
    const startedAt = performance.now();
    const one = fetch(`${origin}/api/upload`, { method: 'POST', headers: { cookie }, body: form, signal: AbortSignal.timeout(60_000) })
      .then(async (res) => {
        const body = (await res.json().catch(() => null)) as { post?: { id?: string } } | null;
        if (res.status === 201 && body?.post?.id) uploads.push({ id: Number(body.post.id), startedAt, answeredAt: performance.now() });
        else failures.push(`${res.status} ${JSON.stringify(body).slice(0, 200)}`);
      })
      .catch((err) => {
        failures.push(String(err));
      })
      .finally(() => inFlight.delete(one));
    inFlight.add(one);
  }
  await Promise.all(inFlight);
  return { uploads, failures };
}

/** Runs `work` while posts are uploaded at `rate` a second; its result, and the uploads. */
async function whilePosting<T>(origin: string, cookie: string, sources: { tags: string; rating: string }[], rate: number, work: () => Promise<T>) {
  const stop = new AbortController();
  const posting = uploadSteadily(origin, cookie, sources, rate, stop.signal);
  try {
    const result = await work();
    stop.abort();
    return { result, ...(await posting) };
  } finally {
    stop.abort();
  }
}

/** The ids among the uploads that the list with the stream's filters holds now (the stream's truth). */
async function expectedIds(origin: string, query: string, from: number, to: number): Promise<Set<number>> {
  const params = new URLSearchParams(query);
  const q = params.get('q');
  params.set('q', q ? `(${q}) id:${from}..${to}` : `id:${from}..${to}`);
  params.set('limit', '100');
  const out = new Set<number>();
  for (let offset = 0; ; offset += 100) {
    params.set('offset', String(offset));
    const res = await fetch(`${origin}/api/posts?${params}`, { signal: AbortSignal.timeout(60_000) });
    const body = (await res.json()) as { posts?: { id: string }[] };
    if (!res.ok) throw new Error(`GET /api/posts?${params} answered ${res.status}: ${JSON.stringify(body).slice(0, 200)}`);
    for (const p of body.posts ?? []) out.add(Number(p.id));
    if ((body.posts ?? []).length < 100) return out;
  }
}

const quantiles = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return { count: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] ?? 0 };
};

export async function runEventsBench(given: Partial<EventsBenchOptions> = {}) {
  const o: EventsBenchOptions = { ...DEFAULTS, ...given };
  const startedAt = new Date().toISOString();
  const dataset = await prepareDataset({
    posts: o.posts,
    seed: 1,
    tagsPerPost: 15,
    dataRoot: path.join(ROOT, 'bench', 'data'),
    databaseUrl: o.databaseUrl,
    log: o.log,
  });
  const all = await buildScenarios(dataset, 1);
  const unknown = o.scenarios.filter((n) => !all.some((s) => s.name === n));
  if (unknown.length) throw new Error(`unknown scenario ${unknown.join(', ')}`);
  const reads = all.filter((s) => o.scenarios.includes(s.name));
  const queries = streamQueries(all, o.streams);
  if (queries.length < o.streams) o.log(`note: the dataset gives ${queries.length} distinct stream queries`);

  const server = new ServerUnderTest(
    {
      dataDir: dataset.dataDir,
      databaseUrl: dataset.databaseUrl,
      workers: o.workers,
      env: { EVENTS_STREAMS_PER_IP: String(Math.min(10_000, o.streams + 10)) },
    },
    o.log,
  );
  let ceiling: Child | null = null;
  const streams: { query: string; stream: SseStream }[] = [];
  let cookie = '';
  const made: Upload[] = [];
  try {
    await server.start();
    assertLoopback(server.origin);
    const sizes: Sizes = {};
    for (const s of reads) sizes[s.name] = (await sampleSizes(server.origin, s, 50)).sizes;
    ceiling = await startCeiling(sizes, o.workers);
    // New posts look like the board's: each takes the tags and rating of an existing post.
    const detail = all.find((s) => s.name === 'post-detail')!.paths.slice(0, 200);
    const sources: { tags: string; rating: string }[] = [];
    for (const p of detail) {
      const post = (await (await fetch(server.origin + p)).json()) as { tags?: (string | { name: string })[]; contentRating?: string };
      const tags = (post.tags ?? []).map((t) => (typeof t === 'string' ? t : t.name));
      if (tags.length) sources.push({ tags: tags.join(','), rating: post.contentRating ?? 'safe' });
    }
    cookie = await signIn(server.origin, '/api/auth/register', { username: `live_${Date.now().toString(36)}`, password: 'live-bench-password-1' });

    for (const s of reads) {
      const rng = new Prng(seedOf(`events/warmup/${s.name}`));
      await runLoad({ origin: server.origin, connections: o.connections, durationSeconds: o.warmupSeconds, nextPath: () => rng.pick(s.paths) });
    }
    const quiet = await readRuns(server, ceiling, reads, sizes, o, 'quiet');
    // The same reads while posts arrive and no stream is open: what the posts cost the reads, apart from the streams.
    const postsOnly = await whilePosting(server.origin, cookie, sources, o.rate, () => readRuns(server, ceiling!, reads, sizes, o, 'new posts'));
    made.push(...postsOnly.uploads);

    const rssBefore = await steadyRss(server.pid);
    const opening = performance.now();
    const refused: string[] = [];
    for (let at = 0; at < queries.length; at += 50) {
      const batch = queries.slice(at, at + 50);
      const opened = await Promise.all(batch.map((query) => openStream(Number(new URL(server.origin).port), `/api/events?${query}`)));
      opened.forEach((stream, i) => {
        if (stream.status === 200) streams.push({ query: batch[i], stream });
        else refused.push(`${stream.status} ${batch[i]}: ${stream.body.slice(0, 200)}`);
      });
    }
    const openSeconds = (performance.now() - opening) / 1000;
    o.log(`streams: ${streams.length} open in ${openSeconds.toFixed(1)} s, ${refused.length} refused${refused.length ? ` (first: ${refused[0]})` : ''}`);
    await sleep(3000);
    const rssOpen = await steadyRss(server.pid);
    const idleBefore = treeCpuSeconds(server.pid);
    const idleStarted = performance.now();
    await sleep(10_000);
    const idleCpuMsPerSecond = (((treeCpuSeconds(server.pid) ?? 0) - (idleBefore ?? 0)) * 1e6) / (performance.now() - idleStarted);

    const {
      result: live,
      uploads,
      failures,
    } = await whilePosting(server.origin, cookie, sources, o.rate, () => readRuns(server, ceiling!, reads, sizes, o, 'streams'));
    made.push(...uploads);
    await sleep(3000);
    const rssLive = await steadyRss(server.pid);

    // Deliveries: every post.created of an upload on every stream, against what the stream's list holds.
    const byId = new Map(uploads.map((u) => [u.id, u]));
    const ids = uploads.map((u) => u.id);
    const [from, to] = [Math.min(...ids), Math.max(...ids)];
    const fromAnswer: number[] = [];
    const fromStart: number[] = [];
    const lastArrival = new Map<number, number>();
    let missed = 0;
    let extra = 0;
    let expectedTotal = 0;
    const missedExamples: string[] = [];
    for (const { query, stream } of streams) {
      const got = new Set<number>();
      for (const e of stream.events) {
        const u = e.event === 'post.created' ? byId.get(Number(e.data.id)) : undefined;
        if (!u) continue;
        got.add(u.id);
        fromAnswer.push(e.receivedAt - u.answeredAt);
        fromStart.push(e.receivedAt - u.startedAt);
        lastArrival.set(u.id, Math.max(lastArrival.get(u.id) ?? 0, e.receivedAt - u.startedAt));
      }
      const expected = ids.length ? await expectedIds(server.origin, query, from, to) : new Set<number>();
      expectedTotal += expected.size;
      for (const id of expected)
        if (!got.has(id)) {
          missed++;
          if (missedExamples.length < 5) missedExamples.push(`post ${id} on ${query}`);
        }
      for (const id of got) if (!expected.has(id)) extra++;
    }
    const matchingStreams = streams.filter(({ stream }) => stream.events.some((e) => e.event === 'post.created')).length;
    const ended = streams.filter(({ stream }) => stream.ended).length;
    const checks = [
      { name: 'deliveries missed', target: '0', value: String(missed), pass: missed === 0 && extra === 0 },
      {
        name: "delivery p99 from the upload's start",
        target: '< 1000 ms',
        value: `${quantiles(fromStart).p99.toFixed(0)} ms`,
        pass: quantiles(fromStart).p99 < 1000,
      },
      ...live.flatMap((r) => [
        { name: `${r.scenario} p99`, target: `< ${r.p99TargetMs} ms`, value: `${r.ours.latencyMs.p99} ms`, pass: r.ours.latencyMs.p99 < r.p99TargetMs },
        ...(r.ceilingTarget === null
          ? []
          : [
              {
                name: `${r.scenario} share`,
                target: `>= ${r.ceilingTarget * 100}%`,
                value: `${(r.share * 100).toFixed(1)}%`,
                pass: r.share >= r.ceilingTarget,
              },
            ]),
      ]),
    ];
    const result = {
      kind: dataset.kind,
      startedAt,
      finishedAt: new Date().toISOString(),
      machine: { cpus: os.availableParallelism(), cpuModel: os.cpus()[0]?.model ?? 'unknown', node: process.version, loadAverage: os.loadavg() },
      options: {
        posts: o.posts,
        streams: o.streams,
        rate: o.rate,
        scenarios: o.scenarios,
        connections: o.connections,
        durationSeconds: o.durationSeconds,
        workers: o.workers,
      },
      streams: { open: streams.length, refused: refused.length, openSeconds, endedByServer: ended, withAPost: matchingStreams },
      memory: {
        rssBeforeBytes: rssBefore,
        rssOpenBytes: rssOpen,
        rssAfterPostsBytes: rssLive,
        bytesPerStream: streams.length ? (rssOpen - rssBefore) / streams.length : 0,
        bytesPerStreamAfterPosts: streams.length ? (rssLive - rssBefore) / streams.length : 0,
      },
      idleCpuMsPerSecond,
      uploads: {
        made: uploads.length,
        failed: failures.length,
        firstFailures: failures.slice(0, 3),
        latencyMs: quantiles(uploads.map((u) => u.answeredAt - u.startedAt)),
        withoutStreamsMs: quantiles(postsOnly.uploads.map((u) => u.answeredAt - u.startedAt)),
      },
      deliveries: {
        expected: expectedTotal,
        delivered: fromAnswer.length,
        missed,
        extra,
        missedExamples,
        fromAnswerMs: quantiles(fromAnswer),
        fromStartMs: quantiles(fromStart),
        lastStreamFromStartMs: quantiles([...lastArrival.values()]),
      },
      reads: quiet.map((q, i) => ({ scenario: q.scenario, quiet: q, posts: postsOnly.result[i], live: live[i] })),
      checks,
      passed: checks.every((c) => c.pass),
    };
    const file = path.join(o.outDir, `events-${result.kind}-${o.posts}-${startedAt.replace(/[:.]/g, '-')}.json`);
    fs.mkdirSync(o.outDir, { recursive: true });
    fs.writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
    o.log(summary(result));
    o.log(`report: ${file}`);
    return result;
  } finally {
    for (const { stream } of streams) stream.close();
    if (cookie && made.length)
      await deletePosts(
        server.origin,
        cookie,
        made.map((u) => String(u.id)),
      ).catch(() => undefined);
    await ceiling?.stop();
    await server.stop();
  }
}

type Result = Awaited<ReturnType<typeof runEventsBench>>;

function summary(r: Result): string {
  const ms = (q: { p50: number; p99: number; max: number }) => `p50 ${q.p50.toFixed(0)} ms, p99 ${q.p99.toFixed(0)} ms, max ${q.max.toFixed(0)} ms`;
  const d = r.deliveries;
  const lines = [
    `${r.streams.open} streams open (${r.streams.refused} refused, ${r.streams.withAPost} got a new post, ${r.streams.endedByServer} ended by the server)`,
    `memory: ${(r.memory.bytesPerStream / 1024).toFixed(1)} KiB RSS a stream once open, ${(r.memory.bytesPerStreamAfterPosts / 1024).toFixed(1)} KiB after the posts; idle CPU ${r.idleCpuMsPerSecond.toFixed(1)} ms a second`,
    `uploads: ${r.uploads.made} made, ${r.uploads.failed} failed; ${ms(r.uploads.latencyMs)} (without streams: ${ms(r.uploads.withoutStreamsMs)})`,
    `deliveries: ${d.delivered} of ${d.expected} expected, ${d.missed} missed, ${d.extra} not expected`,
    `  from the upload's answer: ${ms(d.fromAnswerMs)}`,
    `  from the upload's start:  ${ms(d.fromStartMs)}`,
    `  a post's last stream, from the upload's start: ${ms(d.lastStreamFromStartMs)}`,
    `read scenarios: quiet -> new posts -> new posts and ${r.streams.open} streams:`,
    ...r.reads.map(({ scenario, quiet, posts, live }) => {
      const all = [quiet, posts, live];
      const cpu = all.map((x) => x.ours.serverCpuMsPerRequest?.toFixed(2)).join(' -> ');
      return `  ${scenario.padEnd(12)} p99 ${all.map((x) => x.ours.latencyMs.p99).join(' -> ')} ms, CPU ${cpu} ms a request, share ${all.map((x) => (x.share * 100).toFixed(1)).join(' -> ')}%`;
    }),
    'checks (with the streams open and the posts arriving):',
    ...r.checks.map((c) => `  ${c.pass ? 'pass' : 'FAIL'}  ${c.name}: ${c.value} (target ${c.target})`),
  ];
  return lines.join('\n');
}

function parse(argv: string[]): Partial<EventsBenchOptions> {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      posts: { type: 'string' },
      streams: { type: 'string' },
      rate: { type: 'string' },
      scenarios: { type: 'string' },
      connections: { type: 'string' },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      workers: { type: 'string' },
      out: { type: 'string' },
    },
  });
  const out: Partial<EventsBenchOptions> = {};
  const set = <K extends keyof EventsBenchOptions>(key: K, v: EventsBenchOptions[K] | undefined) => {
    if (v !== undefined) out[key] = v;
  };
  set('posts', whole('posts', values.posts, 100, 10_000_000));
  set('streams', whole('streams', values.streams, 1, 10_000));
  if (values.rate !== undefined) {
    const rate = Number(values.rate);
    if (!(rate >= 0.01 && rate <= 20)) throw new Error(`--rate must be a number of posts a second from 0.01 to 20 (got '${values.rate}')`);
    out.rate = rate;
  }
  set('connections', whole('connections', values.connections, 1, 1024));
  set('durationSeconds', whole('duration', values.duration, 1, 600));
  set('warmupSeconds', whole('warmup', values.warmup, 0, 600));
  set('workers', whole('workers', values.workers, 1, 64));
  if (values.scenarios !== undefined) out.scenarios = values.scenarios.split(',').map((s) => s.trim());
  if (values.out !== undefined) out.outDir = path.resolve(values.out);
  return out;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  runEventsBench(parse(process.argv.slice(2))).catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
