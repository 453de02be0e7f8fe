import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { testConfig } from '../src/config.ts';
import { openDeps } from '../src/core/deps-open.ts';
import { createAccount } from '../src/modules/users/accounts.ts';
import { freePort, startServer, waitFor } from './server-process.ts';

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'ib-'));

/** The pino lines a server wrote to stdout, parsed. */
const logLines = (stdout: string) =>
  stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, any>);

test('the start-up warm-up is charged to no client and logged as no request', async () => {
  const port = await freePort();
  const server = await startServer({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: tempDir(), LOG_LEVEL: 'info', RATE_LIMITS: 'on' });
  try {
    await waitFor(() => server.out().stdout.includes('listening'));
    // Until the warm-up has finished (or, as it used to, sent its two requests).
    await waitFor(() => server.out().stdout.includes('warm-up done') || server.out().stdout.split('request completed').length > 2);
    const res = await fetch(`http://127.0.0.1:${port}/api/posts`);
    assert.equal(res.status, 200);
    const limit = Number(res.headers.get('x-ratelimit-limit'));
    assert.ok(limit > 1);
    assert.equal(Number(res.headers.get('x-ratelimit-remaining')), limit - 1, 'the first request is the first one counted');
    await waitFor(() => server.out().stdout.includes('request completed'));
    const urls = logLines(server.out().stdout)
      .filter((l) => l.req)
      .map((l) => l.req.url);
    assert.deepEqual(urls, ['/api/posts'], 'only the client request is logged');
  } finally {
    server.child.kill('SIGKILL');
  }
});

test('a port in use stops start-up with a message naming PORT, not a stack trace', async () => {
  const busy = net.createServer();
  await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
  const port = (busy.address() as net.AddressInfo).port;
  try {
    const server = await startServer({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: tempDir(), LOG_LEVEL: 'warn' });
    assert.equal(await server.exited, 1);
    const { stderr } = server.out();
    assert.match(stderr, new RegExp(`127\\.0\\.0\\.1:${port}`));
    assert.match(stderr, /already in use/);
    assert.match(stderr, /PORT=/);
    assert.doesNotMatch(stderr, /\n\s+at /, 'no stack trace');
  } finally {
    busy.close();
  }
});

test('a HOST that is not this machine stops start-up with a message naming HOST', async () => {
  const server = await startServer({ PORT: String(await freePort()), HOST: '192.0.2.1', DATA_DIR: tempDir(), LOG_LEVEL: 'warn' });
  assert.equal(await server.exited, 1);
  assert.match(server.out().stderr, /HOST=192\.0\.2\.1 is not an address of this machine/);
  assert.doesNotMatch(server.out().stderr, /\n\s+at /);
});

test('a board without an admin says at start-up how to make the first one; a board with one does not', async () => {
  const hint = /No admin account yet\. Create the first one with: npx imageboard user create <name> --role admin/;
  const dataDir = tempDir();
  const started = async () => {
    const server = await startServer({ PORT: String(await freePort()), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info' });
    await waitFor(() => server.out().stdout.includes('warm-up done'));
    server.child.kill('SIGTERM');
    await server.exited;
    return server.out().stdout;
  };
  assert.match(await started(), hint);
  const deps = await openDeps(testConfig({ dataDir }), { err: { write: () => true } });
  await createAccount(deps, { username: 'root', password: 'a long password', role: 'admin', tier: 'free' });
  await deps.close();
  assert.doesNotMatch(await started(), hint);
});
