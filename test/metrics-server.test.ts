// GET /metrics of the server as `npm start` runs it: with WORKERS=2 the answer covers both
// threads, whichever one is asked; METRICS_PORT serves it on a listener of its own; and a board
// that would serve it open does not start.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parsePrometheus, samplesOf, sampleSum } from './prometheus-text.ts';
import { freePort, startServer, waitFor } from './server-process.ts';

const TOKEN = 'metrics-process-token-0123456789';
const AUTH = { authorization: `Bearer ${TOKEN}` };

/** One GET on a connection of its own, so that with WORKERS > 1 the kernel may give it to either thread. */
function get(port: number, url: string, headers: Record<string, string> = {}): Promise<{ status: number; servedBy: string; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: url, headers, agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, servedBy: String(res.headers['x-served-by']), body }));
      })
      .on('error', reject);
  });
}

/** Requests of GET /api until both threads have answered one; how many were made. */
async function untilBothThreadsServed(port: number): Promise<number> {
  const threads = new Set<string>();
  let made = 0;
  while (threads.size < 2 && made < 60) {
    const res = await get(port, '/api');
    assert.equal(res.status, 200);
    threads.add(res.servedBy);
    made++;
  }
  assert.equal(threads.size, 2, `both threads served: ${[...threads]}`);
  return made;
}

async function boardWith(env: Record<string, string>) {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ib-metrics-'));
  const server = await startServer({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info', RATE_LIMITS: 'off', ...env });
  const stop = async () => {
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0, server.out().stderr);
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await waitFor(() => server.out().stdout.includes('listening'), 60_000);
  } catch (err) {
    server.child.kill('SIGKILL');
    throw new Error(`${(err as Error).message}\n${server.out().stdout}\n${server.out().stderr}`);
  }
  return { port, server, stop };
}

test('METRICS=on with neither a token nor a port of its own: start-up stops, naming both settings', async () => {
  const { exited, out } = await startServer({ METRICS: 'on', DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'ib-')) });
  assert.equal(await exited, 2);
  assert.match(out().stderr, /Invalid setting METRICS: .*METRICS_TOKEN.*METRICS_PORT/);
});

test('WORKERS=2: /metrics covers both threads, whichever of them answers the scrape', async () => {
  const board = await boardWith({ WORKERS: '2', METRICS: 'on', METRICS_TOKEN: TOKEN });
  try {
    assert.equal((await get(board.port, '/metrics')).status, 401, 'the token is asked for');
    const made = await untilBothThreadsServed(board.port);
    const scrapedBy = new Set<string>();
    for (let i = 0; i < 40 && scrapedBy.size < 2; i++) {
      const res = await get(board.port, '/metrics', AUTH);
      assert.equal(res.status, 200, res.body);
      scrapedBy.add(res.servedBy);
      const scrape = [parsePrometheus(res.body)];
      assert.equal(sampleSum(scrape, 'imageboard_http_requests_total', { method: 'GET', route: '/api', status: '200' }), made, `asked of ${res.servedBy}`);
      assert.equal(sampleSum(scrape, 'imageboard_serving_threads'), 2);
      assert.equal(sampleSum(scrape, 'imageboard_serving_threads_scraped'), 2);
      // Each thread's heap on its own; the process's CPU once (the main thread's reading).
      assert.deepEqual(
        samplesOf(scrape, 'nodejs_heap_size_used_bytes')
          .map((s) => s.labels.thread)
          .sort(),
        ['0', '1', 'main'],
      );
      assert.deepEqual(
        samplesOf(scrape, 'process_cpu_seconds_total').map((s) => s.labels),
        [{}],
      );
      assert.equal(sampleSum(scrape, 'imageboard_ready'), 1);
    }
    assert.equal(scrapedBy.size, 2, `both threads answered a scrape: ${[...scrapedBy]}`);
  } finally {
    await board.stop();
  }
});

test("WORKERS=2 with METRICS_PORT: the listener serves /metrics alone, and the board's port answers 404 there", async () => {
  const metricsPort = await freePort();
  const board = await boardWith({ WORKERS: '2', METRICS: 'on', METRICS_PORT: String(metricsPort) });
  try {
    assert.equal((await get(board.port, '/metrics')).status, 404);
    const made = await untilBothThreadsServed(board.port);
    const res = await get(metricsPort, '/metrics');
    assert.equal(res.status, 200, 'no token set: the address is what keeps it private');
    assert.equal(sampleSum([parsePrometheus(res.body)], 'imageboard_http_requests_total', { route: '/api', status: '200' }), made);
    assert.equal((await get(metricsPort, '/api')).status, 404, 'nothing else of the board is there');
  } finally {
    await board.stop();
  }
});

test('METRICS_PORT with METRICS_TOKEN: the listener asks for the token too', async () => {
  const metricsPort = await freePort();
  const board = await boardWith({ METRICS: 'on', METRICS_PORT: String(metricsPort), METRICS_TOKEN: TOKEN });
  try {
    assert.equal((await get(board.port, '/api')).status, 200);
    assert.equal((await get(metricsPort, '/metrics')).status, 401);
    const res = await get(metricsPort, '/metrics', AUTH);
    assert.equal(res.status, 200);
    assert.equal(sampleSum([parsePrometheus(res.body)], 'imageboard_http_requests_total', { route: '/api' }), 1);
  } finally {
    await board.stop();
  }
});

test('`npm run bench -- --metrics` starts the server with settings it accepts', async () => {
  const { defaultOptions, parseBenchArgs } = await import('../bench/run.ts');
  const { metricsSettings } = await import('../bench/metrics-scrape.ts');
  const { loadConfig } = await import('../src/config.ts');
  assert.equal(defaultOptions().metrics, false);
  assert.equal(parseBenchArgs(['--metrics']).metrics, true);
  const { env, token } = metricsSettings();
  assert.deepEqual(loadConfig(env).metrics, { enabled: true, token, port: 0, host: '127.0.0.1' });
});
