// The server as a separate process, started the way `npm start` starts it, for tests of start-up and stopping.
import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { buildServer } from '../scripts/build-server.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');

export async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

// The server as `npm start` runs it: compiled to dist/ first (once a test file), then started by
// scripts/start.sh. Built when first needed: test/helpers.ts imports this file in every run.
let built: Promise<string> | null = null;
const serverBuilt = () => (built ??= buildServer());

/**
 * Starts the server as `npm start` does, with these settings over the environment (SQLite unless
 * DATABASE_URL is given). SIGTERM stops it without the delay a load balancer needs, unless the
 * test sets SHUTDOWN_DELAY_MS.
 */
export async function startServer(env: Record<string, string>) {
  await serverBuilt();
  const child = spawn('sh', [path.join(ROOT, 'scripts', 'start.sh')], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: '', SHUTDOWN_DELAY_MS: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  const out = () => ({ stdout, stderr });
  return { child, exited, out };
}

export async function waitFor(check: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}
