import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { runBench } from '../bench/run.ts';
import { SCENARIO_NAMES } from '../bench/scenarios.ts';
import { fillMd5 } from '../src/modules/uploads/md5-fill.ts';
import { seedDatabase } from '../src/seed/generate.ts';
import { LocalMediaStore } from '../src/storage/local.ts';
import { databaseKinds, freshDatabase } from './helpers.ts';

// Benchmarks are not tests: this only checks that the harness runs end to end, on a tiny
// SQLite dataset, one second a scenario, 8 connections, results in a temporary directory.
test('the benchmark harness runs every scenario against the server and the ceiling and writes its report', { timeout: 240_000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ib-bench-'));
  const page = path.join(dir, 'benchmarks.md');
  fs.writeFileSync(page, 'untouched\n');
  const lines: string[] = [];
  try {
    const { report, files } = await runBench({
      posts: 300,
      connections: [8],
      durationSeconds: 1,
      workers: 1,
      samples: 10,
      warmupSeconds: 0.2,
      uploads: 3,
      outDir: path.join(dir, 'results'),
      dataRoot: path.join(dir, 'data'),
      databaseUrl: '',
      docs: false,
      docsPath: page,
      log: (line) => lines.push(line),
    });
    assert.equal(report.kind, 'sqlite');
    assert.deepEqual(
      report.scenarios.map((s) => s.name),
      [...SCENARIO_NAMES],
    );
    for (const s of report.scenarios) {
      assert.equal(s.runs.length, 1, s.name);
      const [run] = s.runs;
      assert.equal(run.connections, 8);
      assert.ok(run.ours.requestsPerSecond > 0, `${s.name}: requests/s > 0`);
      assert.ok(run.ceiling.requestsPerSecond > 0, `${s.name}: ceiling requests/s > 0`);
      assert.ok(Number.isFinite(run.ratio) && run.ratio > 0, `${s.name}: ceiling ratio`);
      assert.equal(run.ours.errors, 0, `${s.name}: no errors\n${lines.join('\n')}`);
      assert.equal(run.ceiling.errors, 0, `${s.name}: no ceiling errors`);
      assert.equal(s.sampleErrors, 0, `${s.name}: sample requests answered 2xx`);
      assert.ok(s.distinctPaths >= 20, `${s.name}: ${s.distinctPaths} distinct paths`);
      // Each scenario is warmed on its own requests just before its first measured run.
      const warmed = lines.findIndex((l) => l.startsWith(`${s.name.padEnd(14)} warm-up:`));
      const measured = lines.findIndex((l) => l.startsWith(`${s.name.padEnd(14)} c=8:`));
      assert.ok(warmed >= 0 && warmed === measured - 1, `${s.name}: warmed just before it is measured\n${lines.join('\n')}`);
      // ... and the database read through the OS's cache just before that.
      assert.match(lines[warmed - 1] ?? '', new RegExp(`^${s.name} +file cache: [0-9.]+ GB of the database read`), `${s.name}: file cache read first`);
    }
    assert.ok(report.upload, 'the upload scenario ran');
    assert.equal(report.upload.errors, 0, JSON.stringify(report.upload.statuses));
    assert.ok(report.upload.uploadsPerSecond > 0);
    assert.ok(report.dataset.bytes > 0);
    assert.ok(report.server.peakRssBytes === null || report.server.peakRssBytes > 0);
    assert.ok(report.checks.length > 0, 'the targets are checked on SQLite');

    assert.ok(fs.existsSync(files.json) && fs.existsSync(files.markdown) && fs.existsSync(files.latest) && fs.existsSync(files.latestJson));
    assert.equal(fs.readFileSync(files.latestJson, 'utf8'), fs.readFileSync(files.json, 'utf8'), 'latest-sqlite.json is the run');
    assert.equal(fs.readFileSync(files.latest, 'utf8'), fs.readFileSync(files.markdown, 'utf8'), 'latest-sqlite.md is the run');
    const saved = JSON.parse(fs.readFileSync(files.json, 'utf8'));
    assert.equal(saved.scenarios.length, SCENARIO_NAMES.length);
    const md = fs.readFileSync(files.markdown, 'utf8');
    for (const name of SCENARIO_NAMES) assert.match(md, new RegExp(`\\| ${name} \\| 8 \\|`));
    assert.match(md, /PASS|FAIL/);
    assert.match(md, /after 0\.2 s of the scenario's requests on each server, not measured/);
    assert.equal(fs.readFileSync(page, 'utf8'), 'untouched\n', 'the benchmarks page is left alone');

    // The dataset's title words were written after its posts (not by triggers), and the triggers are back for what follows.
    const [name] = fs.readdirSync(path.join(dir, 'data'));
    const conn = new SQLite(path.join(dir, 'data', name, 'imageboard.db'), { readonly: true });
    try {
      const titles = conn.prepare('SELECT id, title FROM posts').all() as { id: number; title: string }[];
      const want = titles
        .flatMap((p) =>
          [
            ...new Set(
              p.title
                .replace(/[A-Z]/g, (c) => c.toLowerCase())
                .split(' ')
                .filter(Boolean),
            ),
          ].map((w) => `${w} ${p.id}`),
        )
        .sort();
      const have = (conn.prepare('SELECT word, post_id FROM title_words').all() as { word: string; post_id: number }[])
        .map((r) => `${r.word} ${r.post_id}`)
        .sort();
      assert.ok(want.length > 300);
      assert.deepEqual(have, want);
      const triggers = conn
        .prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'trigger' AND (name LIKE '%title_words%' OR name LIKE 'title_vocab%')")
        .get() as { n: number };
      assert.equal(triggers.n, 7);
    } finally {
      conn.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

for (const kind of databaseKinds()) {
  test(`a reused dataset made before md5 gets the md5 a new dataset has, so the server has nothing to fill [${kind}]`, async () => {
    const { fillStandInMd5 } = await import('../bench/dataset.ts');
    const fresh = await freshDatabase(kind);
    try {
      const db = fresh.database;
      await seedDatabase(db, { posts: 30, seed: 4, until: Date.parse('2026-06-15T12:00:00Z'), mediaDir: null });
      const md5s = async () => (await db.selectFrom('posts').select(['id', 'md5']).orderBy('id').execute()).map((r) => r.md5);
      const made = await md5s();
      await db.updateTable('posts').set({ md5: null }).where('id', '>', 10).execute(); // as migration 002 leaves an older dataset
      assert.equal(await fillStandInMd5(db, 4), 20);
      assert.deepEqual(await md5s(), made);
      assert.equal(await fillStandInMd5(db, 4), 0);
      assert.deepEqual(await fillMd5({ db, media: new LocalMediaStore(path.join(fresh.dataDir, 'media')) }), {
        total: 0,
        filled: 0,
        missing: 0,
        stopped: false,
      });
    } finally {
      await fresh.cleanup();
    }
  });
}

test('the report checks dataset generation time at a million posts only', async () => {
  const { computeChecks } = await import('../bench/report.ts');
  const report = (posts: number, generationSeconds: number) =>
    ({
      kind: 'sqlite',
      options: { posts, connections: [16], durationSeconds: 10, workers: 2, scenarios: [] },
      scenarios: [],
      upload: null,
      dataset: { summary: { posts }, generationSeconds },
      server: { peakRssBytes: null },
    }) as unknown as Parameters<typeof computeChecks>[0];
  const generation = (posts: number, secs: number) => computeChecks(report(posts, secs)).find((c) => c.name === 'dataset generation');
  assert.equal(generation(1_000_000, 226)?.pass, true);
  assert.equal(generation(1_000_000, 301)?.pass, false);
  assert.equal(generation(300, 301), undefined);
});

test('the Danbooru pages have a p99 target of 250 ms on both engines; every other scenario keeps 50 ms', async () => {
  const { computeChecks } = await import('../bench/report.ts');
  const { P99_TARGETS } = await import('../bench/scenarios.ts');
  assert.equal(P99_TARGETS['danbooru-posts'], 250);
  const run = (p99: number) => ({ connections: 16, ours: { latencyMs: { p99 }, errors: 0 }, ceiling: {}, ratio: 0.5 });
  const report = (kind: string) =>
    ({
      kind,
      options: { posts: 1000, connections: [16], durationSeconds: 10, workers: 2, scenarios: [] },
      scenarios: [
        { name: 'danbooru-posts', ceilingTarget: null, p99TargetMs: 250, runs: [run(240)] },
        { name: 'newest', ceilingTarget: null, runs: [run(60)] },
      ],
      upload: null,
      dataset: { summary: { posts: 1000 }, generationSeconds: 1 },
      server: { peakRssBytes: null },
    }) as unknown as Parameters<typeof computeChecks>[0];
  const p99 = (kind: string, name: string) => computeChecks(report(kind)).find((c) => c.name === `${name} p99`);
  assert.deepEqual([p99('sqlite', 'danbooru-posts')?.target, p99('sqlite', 'danbooru-posts')?.pass], ['< 250 ms at 16 conns', true]);
  assert.deepEqual([p99('sqlite', 'newest')?.target, p99('sqlite', 'newest')?.pass], ['< 50 ms at 16 conns', false]);
  assert.deepEqual([p99('postgres', 'danbooru-posts')?.target, p99('postgres', 'danbooru-posts')?.pass], ['< 250 ms at 16 conns', true]);
  assert.deepEqual([p99('postgres', 'newest')?.target, p99('postgres', 'newest')?.pass], ['< 50 ms at 16 conns', false]);
});

test("on PostgreSQL the report checks every read scenario (p99 < 50 ms, 15% of the ceiling) and gives the backends' CPU a request", async () => {
  const { computeChecks, markdown } = await import('../bench/report.ts');
  const load = (rps: number, p99: number, cpu: number, db?: number) => ({
    connections: 16,
    durationSeconds: 5,
    requests: rps * 5,
    requestsPerSecond: rps,
    latencyMs: { p50: 2, p90: 5, p99, max: p99 },
    errors: 0,
    non2xx: 0,
    socketErrors: 0,
    timeouts: 0,
    bytesPerSecond: 1,
    serverCpuMsPerRequest: cpu,
    ...(db === undefined ? {} : { databaseCpuMsPerRequest: db }),
  });
  const scenario = (name: string, ceilingTarget: number | null, rps: number, p99: number) => ({
    name,
    description: name,
    distinctPaths: 1000,
    sampleBytes: { count: 50, min: 1, median: 1, max: 1 },
    sampleMs: { median: 1, max: 1 },
    sampleErrors: 0,
    ceilingTarget,
    runs: [{ connections: 16, ours: load(rps, p99, 0.5, 0.25), ceiling: load(10_000, 2, 0.05), ratio: rps / 10_000 }],
  });
  const base = {
    kind: 'postgres' as const,
    startedAt: '2026-11-26T16:00:00.000Z',
    finishedAt: '2026-11-26T16:10:00.000Z',
    options: { posts: 1_000_000, connections: [16], durationSeconds: 5, workers: 2, scenarios: [] },
    machine: {
      cpus: 2,
      cpuModel: 'test',
      node: 'v20',
      loadAverageStart: [1, 1, 1],
      loadAverageEnd: [1, 1, 1],
      postgres: { version: '15.19 (Debian 15.19-0+deb12u1)', sharedBuffers: '128MB' },
    },
    dataset: {
      name: 'd',
      reused: true,
      generationSeconds: 800,
      generationCpuSeconds: null,
      bytes: 1,
      ageDays: 0,
      summary: { posts: 1_000_000, tags: 1, postTags: 1, users: 1, likes: 1, comments: 1, pools: 1 },
    },
    server: { peakRssBytes: 500 * 1024 * 1024, processes: 2, samples: 1, restartedAfter: [] },
    // user-profile has no ceiling target on SQLite; on PostgreSQL every read scenario has one.
    scenarios: [scenario('newest', 0.4, 2_000, 20), scenario('user-profile', null, 1_000, 60)],
    upload: null,
  } as unknown as Parameters<typeof computeChecks>[0];
  const checks = computeChecks(base);
  const named = new Map(checks.map((c) => [c.name, c]));
  assert.equal(named.get('newest ceiling')?.target, '>= 15%');
  assert.equal(named.get('newest ceiling')?.pass, true);
  assert.equal(named.get('newest p99')?.pass, true);
  assert.equal(named.get('user-profile ceiling')?.pass, false, '10% of the ceiling is under 15%');
  assert.equal(named.get('user-profile p99')?.pass, false, 'p99 60 ms');
  assert.equal(named.get('peak RSS'), undefined, "the memory target is SQLite's");
  assert.equal(named.get('dataset generation'), undefined, "the generation target is SQLite's");
  const table = markdown({ ...base, checks, passed: checks.every((c) => c.pass) });
  assert.match(table, /CPU ms\/req ours \/ PostgreSQL \/ ceiling/);
  assert.match(table, /Node v20, PostgreSQL 15\.19 \(Debian 15\.19-0\+deb12u1\) with shared_buffers 128MB; load average/);
  assert.match(table, /\| newest \| 16 \|.*\| 0\.50 \/ 0\.25 \/ 0\.05 \| p99 < 50 ms: PASS; ceiling >= 15%: PASS; errors 0: PASS \|/);
  assert.match(table, /Targets: 4 of 6 checks pass — FAIL \(user-profile p99, user-profile ceiling\)/);
});

test('a run measured in turns with the ceiling adds up its slices: requests and time summed, the worst p99 kept', async () => {
  const { combineLoads, sliceCount } = await import('../bench/load.ts');
  const slice = (requests: number, p50: number, p99: number, cpu: number) => ({
    connections: 16,
    durationSeconds: 2,
    requests,
    requestsPerSecond: requests / 2,
    latencyMs: { p50, p90: p50 * 2, p99, max: p99 * 2 },
    errors: 1,
    non2xx: 1,
    socketErrors: 0,
    timeouts: 0,
    bytesPerSecond: 1000,
    serverCpuMsPerRequest: cpu,
  });
  const all = combineLoads([slice(1000, 1, 5, 0.2), slice(3000, 2, 9, 0.4), slice(2000, 3, 4, 0.3)]);
  assert.equal(all.requests, 6000);
  assert.equal(all.durationSeconds, 6);
  assert.equal(all.requestsPerSecond, 1000);
  assert.deepEqual(all.latencyMs, { p50: 2, p90: 4, p99: 9, max: 18 });
  assert.equal(all.errors, 3);
  assert.ok(Math.abs(all.serverCpuMsPerRequest! - (0.2 * 1000 + 0.4 * 3000 + 0.3 * 2000) / 6000) < 1e-9);
  assert.deepEqual([sliceCount(10), sliceCount(20), sliceCount(1), sliceCount(12)], [5, 5, 1, 1]);
});

test('--no-docs, and --no-readme as its old name, leave the benchmarks page alone', async () => {
  const { defaultOptions, parseBenchArgs } = await import('../bench/run.ts');
  assert.equal(defaultOptions().docs, true);
  assert.match(defaultOptions().docsPath, /docs[\\/]benchmarks\.md$/);
  assert.equal(parseBenchArgs(['--no-docs']).docs, false);
  assert.equal(parseBenchArgs(['--no-readme']).docs, false);
  assert.equal(parseBenchArgs([]).docs, undefined);
});

test("--warmup takes each scenario's unmeasured seconds as a whole number, 0 included, 3 by default", async () => {
  const { defaultOptions, parseBenchArgs } = await import('../bench/run.ts');
  assert.equal(defaultOptions().warmupSeconds, 3);
  assert.equal(parseBenchArgs(['--warmup', '0']).warmupSeconds, 0);
  assert.equal(parseBenchArgs(['--warmup', '5']).warmupSeconds, 5);
  assert.equal(parseBenchArgs([]).warmupSeconds, undefined);
  assert.throws(() => parseBenchArgs(['--warmup', '1.5']), /--warmup must be a whole number/);
});

test("a run replaces only its own engine's table on the benchmarks page", async () => {
  const { updateDocs } = await import('../bench/report.ts');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ib-bench-docs-'));
  try {
    const page = path.join(dir, 'benchmarks.md');
    const text =
      'intro\n<!-- bench:start -->\nold sqlite\n<!-- bench:end -->\nmiddle\n<!-- bench:postgres:start -->\nold pg\n<!-- bench:postgres:end -->\nend\n';
    fs.writeFileSync(page, text);
    assert.equal(updateDocs(page, '### new sqlite\n', 'sqlite'), true);
    assert.equal(fs.readFileSync(page, 'utf8'), text.replace('old sqlite', '### new sqlite'));
    assert.equal(updateDocs(page, '### new pg\n', 'postgres'), true);
    assert.equal(fs.readFileSync(page, 'utf8'), text.replace('old sqlite', '### new sqlite').replace('old pg', '### new pg'));
    fs.writeFileSync(page, 'no markers\n');
    assert.equal(updateDocs(page, 'x', 'sqlite'), false);
    assert.equal(fs.readFileSync(page, 'utf8'), 'no markers\n');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("the repository's benchmarks page has both engines' markers, so a run has somewhere to write", async () => {
  const { docMarkers } = await import('../bench/report.ts');
  const text = fs.readFileSync(new URL('../docs/benchmarks.md', import.meta.url), 'utf8');
  for (const kind of ['sqlite', 'postgres'] as const) {
    const m = docMarkers(kind);
    assert.ok(text.indexOf(m.start) >= 0 && text.indexOf(m.end) > text.indexOf(m.start), kind);
  }
});
