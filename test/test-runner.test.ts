// `npm test` on a machine without Chromium, PostgreSQL or Redis: it ends, and what it could not run
// is counted as skipped in the closing summary, with the reason.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { test } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '..');

test('without Chromium and PostgreSQL the run ends, counting the browser suites and the PostgreSQL pass as skipped', () => {
  const env: NodeJS.ProcessEnv = { ...process.env, CHROMIUM_PATH: '/nonexistent/chromium' };
  for (const name of ['TEST_DATABASE_URL', 'REDIS_URL', 'NODE_TEST_CONTEXT']) delete env[name];
  const run = spawnSync(process.execPath, ['scripts/test.mjs', 'test/browser/', 'src/modules/meta/meta.test'], {
    cwd: ROOT,
    env,
    encoding: 'utf8',
    timeout: 180_000,
  });
  assert.equal(run.signal, null, 'the run ended by itself');
  assert.equal(run.status, 0, run.stdout.slice(-2000));
  const count = (what: string) => Number(new RegExp(`^# ${what} (\\d+)$`, 'm').exec(run.stdout)?.[1]);
  const browserSuites = fs.readdirSync(path.join(ROOT, 'test', 'browser')).filter((f) => f.endsWith('.test.ts')).length;
  assert.ok(browserSuites >= 3);
  assert.equal(count('skipped'), browserSuites + 1, 'each browser suite and one PostgreSQL pass');
  assert.ok(count('pass') > 0);
  assert.match(run.stdout, /# SKIP Chromium not found at \/nonexistent\/chromium/);
  assert.match(run.stdout, /# SKIP TEST_DATABASE_URL is not set/);
});

test('off a terminal the run reports failures whole, skips with their reason and the counts, not a line a passing test', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ib-reporter-'));
  const file = path.join(dir, 'mixed.test.ts');
  fs.writeFileSync(
    file,
    `import { test } from 'node:test';
import assert from 'node:assert/strict';
for (let i = 0; i < 30; i++) test(\`passing \${i}\`, () => {});
test('failing', () => { console.log('printed by the failing file'); assert.equal(1, 2, 'one is not two'); });
test('skipped', { skip: 'for a reason' }, () => {});
`,
  );
  // A run of its own, not a part of this one's report.
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['TEST_DATABASE_URL', 'NODE_TEST_CONTEXT', 'TEST_REPORTER']) delete env[name];
  try {
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--test', `--test-reporter=${path.join(ROOT, 'scripts', 'test-reporter.mjs')}`, file], {
      cwd: ROOT,
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(run.status, 1, 'a failure fails the run');
    assert.match(run.stdout, /^not ok .*mixed\.test\.ts > failing$/m);
    assert.match(run.stdout, /one is not two/);
    assert.match(run.stdout, /\| printed by the failing file/);
    assert.match(run.stdout, /^skip skipped # SKIP for a reason$/m);
    assert.match(run.stdout, /^# pass 30$/m);
    assert.match(run.stdout, /^# fail 1$/m);
    assert.doesNotMatch(run.stdout, /passing 3/, 'passing tests are counted, not listed');
    assert.ok(run.stdout.split('\n').length < 50, run.stdout);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  // scripts/test.mjs picks it when its output is not a terminal (here, a pipe).
  const piped = spawnSync(process.execPath, ['scripts/test.mjs', 'src/core/nearest'], { cwd: ROOT, env, encoding: 'utf8', timeout: 120_000 });
  assert.equal(piped.status, 0, piped.stdout);
  assert.match(piped.stdout, /^# files 1$/m);
  assert.doesNotMatch(piped.stdout, /^TAP version/m);
});
