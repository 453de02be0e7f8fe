import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { freePort, startServer, waitFor } from './server-process.ts';

/** GET on a connection of its own (so that with WORKERS > 1 each may land on another thread); null when refused or dropped. */
function getFresh(port: number, url: string): Promise<{ status: number; body: any } | null> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: url, agent: false }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    });
    req.on('error', () => resolve(null));
  });
}

for (const workers of ['1', '2']) {
  test(`WORKERS=${workers}: on SIGTERM /readyz turns 503 draining while every thread still serves, then the port closes and the server exits 0`, async () => {
    const port = await freePort();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ib-'));
    const server = await startServer({
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      WORKERS: workers,
      RATE_LIMITS: 'off',
      SHUTDOWN_DELAY_MS: '2500',
    });
    try {
      await waitFor(() => server.out().stdout.includes('listening'), 60_000);
      for (let i = 0; i < 4; i++) assert.equal((await getFresh(port, '/readyz'))?.status, 200);

      server.child.kill('SIGTERM');
      await waitFor(() => server.out().stdout.includes('draining'));
      const seen: { readyz: number; api: number }[] = [];
      // Four new connections: with two threads, the kernel gives each connection to one of them.
      for (let i = 0; i < 4; i++) {
        const ready = await getFresh(port, '/readyz');
        const api = await getFresh(port, '/api/posts');
        assert.ok(ready && api, 'the port is still open during the delay');
        assert.equal(ready.body.status, 'draining');
        seen.push({ readyz: ready.status, api: api.status });
      }
      assert.deepEqual(
        seen.map((s) => [s.readyz, s.api]),
        Array(4).fill([503, 200]),
        '/readyz is 503 on every thread while the API still answers',
      );
      assert.equal(server.child.exitCode, null);

      await waitFor(() => server.out().stdout.includes('stopping'), 10_000);
      assert.equal(await server.exited, 0);
      assert.equal(await getFresh(port, '/healthz'), null, 'the port is closed');
      const lines = server.out().stdout;
      assert.ok(lines.indexOf('draining') < lines.indexOf('stopping'), 'drains before it stops');
    } finally {
      server.child.kill('SIGKILL');
    }
  });
}

test('WORKERS=2: SIGINT (Ctrl-C) stops every thread at once, without the drain delay', async () => {
  const port = await freePort();
  const server = await startServer({
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'ib-')),
    LOG_LEVEL: 'info',
    WORKERS: '2',
    RATE_LIMITS: 'off',
    SHUTDOWN_DELAY_MS: '30000',
  });
  try {
    await waitFor(() => server.out().stdout.includes('with 2 threads'), 60_000);
    const started = Date.now();
    server.child.kill('SIGINT');
    assert.equal(await server.exited, 0);
    assert.ok(Date.now() - started < 15_000, `stopped in ${Date.now() - started} ms`);
    assert.doesNotMatch(server.out().stdout, /draining/);
    assert.equal(await getFresh(port, '/healthz'), null, 'the port is closed');
  } finally {
    server.child.kill('SIGKILL');
  }
});
