// `npm test` on a machine without Chromium, PostgreSQL or Redis: it ends, and what it could not run
// is counted as skipped in the closing summary, with the reason.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
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
