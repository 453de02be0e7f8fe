import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { runBench } from '../bench/run.ts';
import { SCENARIO_NAMES } from '../bench/scenarios.ts';

// Benchmarks are not tests: this only checks that the harness runs end to end, on a tiny
// SQLite dataset, one second a scenario, 8 connections, results in a temporary directory.
test('the benchmark harness runs every scenario against the server and the ceiling and writes its report', { timeout: 120_000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ib-bench-'));
  const readme = path.join(dir, 'README.md');
  fs.writeFileSync(readme, 'untouched\n');
  const lines: string[] = [];
  try {
    const { report, files } = await runBench({
      posts: 300,
      connections: [8],
      durationSeconds: 1,
      workers: 1,
      samples: 10,
      warmupSeconds: 1,
      uploads: 3,
      outDir: path.join(dir, 'results'),
      dataRoot: path.join(dir, 'data'),
      databaseUrl: '',
      readme: false,
      readmePath: readme,
      log: (line) => lines.push(line),
    });
    assert.equal(report.kind, 'sqlite');
    assert.deepEqual(report.scenarios.map((s) => s.name), [...SCENARIO_NAMES]);
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
    }
    assert.ok(report.upload, 'the upload scenario ran');
    assert.equal(report.upload.errors, 0, JSON.stringify(report.upload.statuses));
    assert.ok(report.upload.uploadsPerSecond > 0);
    assert.ok(report.dataset.bytes > 0);
    assert.ok(report.server.peakRssBytes === null || report.server.peakRssBytes > 0);
    assert.ok(report.checks.length > 0, 'the targets are checked on SQLite');

    assert.ok(fs.existsSync(files.json) && fs.existsSync(files.markdown) && fs.existsSync(files.latest));
    const saved = JSON.parse(fs.readFileSync(files.json, 'utf8'));
    assert.equal(saved.scenarios.length, SCENARIO_NAMES.length);
    const md = fs.readFileSync(files.markdown, 'utf8');
    for (const name of SCENARIO_NAMES) assert.match(md, new RegExp(`\\| ${name} \\| 8 \\|`));
    assert.match(md, /PASS|FAIL/);
    assert.equal(fs.readFileSync(readme, 'utf8'), 'untouched\n', 'the README is left alone');

    // The dataset's title words were written after its posts (not by triggers), and the triggers are back for what follows.
    const [name] = fs.readdirSync(path.join(dir, 'data'));
    const conn = new SQLite(path.join(dir, 'data', name, 'imageboard.db'), { readonly: true });
    try {
      const titles = conn.prepare('SELECT id, title FROM posts').all() as { id: number; title: string }[];
      const want = titles.flatMap((p) => [...new Set(p.title.replace(/[A-Z]/g, (c) => c.toLowerCase()).split(' ').filter(Boolean))].map((w) => `${w} ${p.id}`)).sort();
      const have = (conn.prepare('SELECT word, post_id FROM title_words').all() as { word: string; post_id: number }[]).map((r) => `${r.word} ${r.post_id}`).sort();
      assert.ok(want.length > 300);
      assert.deepEqual(have, want);
      const triggers = conn.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'trigger' AND (name LIKE '%title_words%' OR name LIKE 'title_vocab%')").get() as { n: number };
      assert.equal(triggers.n, 7);
    } finally {
      conn.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the report checks dataset generation time at a million posts only', async () => {
  const { computeChecks } = await import('../bench/report.ts');
  const report = (posts: number, generationSeconds: number) => ({
    kind: 'sqlite', options: { posts, connections: [16], durationSeconds: 10, workers: 2, scenarios: [] }, scenarios: [], upload: null,
    dataset: { summary: { posts }, generationSeconds }, server: { peakRssBytes: null },
  }) as unknown as Parameters<typeof computeChecks>[0];
  const generation = (posts: number, secs: number) => computeChecks(report(posts, secs)).find((c) => c.name === 'dataset generation');
  assert.equal(generation(1_000_000, 226)?.pass, true);
  assert.equal(generation(1_000_000, 301)?.pass, false);
  assert.equal(generation(300, 301), undefined);
});
