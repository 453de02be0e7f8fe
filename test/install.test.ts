// An installed release as an operator runs it: built once (`npm run build`, run by npm install and
// npm ci), then `npm start`, which must build nothing and write nothing into the install.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildServer } from '../scripts/build-server.mjs';
import { freePort, waitFor } from './server-process.ts';
import { onGlibc } from '../src/core/malloc-trim.ts';

const ROOT = path.resolve(import.meta.dirname, '..');

/** A copy of what a release holds to start (the built server, its scripts, static files), with the dependencies linked in. */
async function release(built: boolean): Promise<string> {
  await buildServer();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ib-release-'));
  for (const part of ['package.json', 'scripts', 'public', 'bin', ...(built ? ['dist', 'native'] : [])]) {
    fs.cpSync(path.join(ROOT, part), path.join(dir, part), { recursive: true });
  }
  if (built && fs.existsSync(path.join(ROOT, 'web', 'dist'))) fs.cpSync(path.join(ROOT, 'web', 'dist'), path.join(dir, 'web', 'dist'), { recursive: true });
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  return dir;
}

/** Every file and folder under dir (node_modules left out) with its size and last change: what a start must not alter. */
function listing(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const rel of fs.readdirSync(dir, { recursive: true }) as string[]) {
    if (rel.split(path.sep)[0] === 'node_modules') continue;
    const st = fs.lstatSync(path.join(dir, rel));
    out[rel] = `${st.isDirectory() ? 'dir' : st.size} ${st.mtimeMs} ${st.ctimeMs}`;
  }
  return out;
}

/**
 * `npm start` in `dir`, in a process group of its own (npm, sh, node), so that a failed test can end
 * it as a whole. Without Redis: its requests would count in the windows other tests' servers share.
 */
function npmStart(dir: string, env: Record<string, string>) {
  const child = spawn('npm', ['start'], { cwd: dir, env: { ...process.env, DATABASE_URL: '', REDIS_URL: '', SHUTDOWN_DELAY_MS: '0', ...env }, detached: true });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return { child, exited, out: () => ({ stdout, stderr }) };
}

test('npm start of a built release writes nothing into the release: it serves, answers and stops with the install unchanged', async () => {
  const dir = await release(true);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ib-data-'));
  const before = listing(dir);
  assert.ok(Object.keys(before).includes(path.join('dist', 'server.js')));
  const port = await freePort();
  const server = npmStart(dir, { PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info' });
  try {
    await waitFor(() => server.out().stdout.includes('listening'), 30_000);
    for (const url of ['/readyz', '/api/posts', '/api/openapi.json', '/static/', '/']) {
      const res = await fetch(`http://127.0.0.1:${port}${url}`, { headers: { accept: 'text/html' } });
      await res.arrayBuffer();
      if (url !== '/static/' && url !== '/') assert.equal(res.status, 200, url);
    }
    // The server itself (pino logs its pid): npm then ends with the server's exit code.
    const pid = (
      JSON.parse(
        server
          .out()
          .stdout.split('\n')
          .find((l) => l.startsWith('{'))!,
      ) as { pid: number }
    ).pid;
    process.kill(pid, 'SIGTERM');
    assert.equal(await server.exited, 0, server.out().stderr);
    assert.match(server.out().stdout, /"msg":"stopped"/);
    // Where the build makes the addon, the release's server loads it (and says so when it cannot).
    assert.equal(/malloc-trim is not built/.test(server.out().stdout), !onGlibc());
    assert.deepEqual(listing(dir), before, 'no file under the release was created, changed or removed');
    assert.ok(fs.existsSync(path.join(dataDir, 'imageboard.db')), 'the board lives in DATA_DIR');
  } finally {
    try {
      process.kill(-server.child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('npm start without a build fails at once, saying to run npm run build', async () => {
  const dir = await release(false);
  try {
    const server = npmStart(dir, { PORT: String(await freePort()), DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'ib-data-')) });
    assert.notEqual(await server.exited, 0);
    assert.match(server.out().stderr, /The server is not built \(no dist\/server\.js\)\. Run `npm run build` first/);
    assert.equal(fs.existsSync(path.join(dir, 'dist')), false, 'and builds nothing itself');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
