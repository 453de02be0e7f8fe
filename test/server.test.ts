import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.ts';
import { testConfig } from '../src/config.ts';
import { freshDatabase } from './helpers.ts';
import { freePort, startServer, waitFor } from './server-process.ts';

test('a bad setting stops start-up with a message naming it', async () => {
  const { exited, out } = await startServer({ PORT: 'abc', DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'ib-')) });
  assert.equal(await exited, 2);
  assert.match(out().stderr, /PORT/);
  assert.match(out().stderr, /abc/);
});

test('SIGTERM refuses new connections, finishes the in-flight request, closes the database and exits 0', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ib-'));
  const port = await freePort();
  const server = await startServer({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info' });
  try {
    await waitFor(() => server.out().stdout.includes('listening'));
    assert.ok(fs.existsSync(path.join(dataDir, 'imageboard.db-wal')), 'SQLite runs in WAL mode');

    // A request whose body is still arriving when SIGTERM comes.
    const sock = net.connect(port, '127.0.0.1');
    await new Promise((r) => sock.on('connect', r));
    let response = '';
    sock.on('data', (d) => (response += d));
    const body = '{"postId":"1","content":"hi"}';
    sock.write(`POST /api/posts HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`);
    await new Promise((r) => setTimeout(r, 200));
    server.child.kill('SIGTERM');
    await waitFor(() => server.out().stdout.includes('stopping'));

    const refused = await new Promise<boolean>((r) => {
      const s = net.connect(port, '127.0.0.1');
      s.on('error', () => r(true));
      s.on('connect', () => {
        s.destroy();
        r(false);
      });
    });
    assert.equal(refused, true, 'new connections are refused while stopping');
    assert.equal(server.child.exitCode, null, 'still running while a request is in flight');

    sock.write(body.slice(10));
    assert.equal(await server.exited, 0);
    assert.match(response, /^HTTP\/1\.1 405 /, 'the in-flight request got its answer');
    assert.match(response, /connection: close/i);
    assert.equal(fs.existsSync(path.join(dataDir, 'imageboard.db-wal')), false, 'database closed cleanly (WAL folded back)');
  } finally {
    server.child.kill('SIGKILL');
  }
});

test('a 500 shows no stack trace or SQL, and is logged with its request id', async () => {
  const fresh = await freshDatabase('sqlite');
  const logs = new PassThrough();
  let logText = '';
  logs.on('data', (d) => (logText += d));
  const app = await buildApp(testConfig({ dataDir: fresh.dataDir, logLevel: 'error' }), { database: fresh.database, logStream: logs });
  await app.ready();
  await fresh.database.close(); // every query now fails inside the driver
  const res = await app.inject({ method: 'GET', url: '/api/posts?search=cat' });
  assert.equal(res.statusCode, 500);
  const body = res.json();
  assert.deepEqual(Object.keys(body).sort(), ['error', 'requestId', 'status']);
  assert.equal(body.status, 500);
  assert.doesNotMatch(res.body, /select|from|posts|\.ts|at \w+ \(/i);
  assert.equal(res.headers['x-request-id'], body.requestId);
  await app.close();
  assert.match(logText, new RegExp(body.requestId));
  assert.match(logText, /"level":50/);
  fs.rmSync(fresh.dataDir, { recursive: true, force: true });
});

/** One GET /api on a connection of its own; who answered (x-served-by: pid, and thread after a dot) and the open socket. */
async function getOnNewConnection(port: number): Promise<{ servedBy: string; socket: net.Socket }> {
  const socket = net.connect(port, '127.0.0.1');
  let text = '';
  socket.on('data', (d) => (text += d));
  socket.write('GET /api HTTP/1.1\r\nHost: localhost\r\n\r\n');
  const complete = () => {
    const [head, body = ''] = text.split('\r\n\r\n');
    const length = /content-length: (\d+)/i.exec(head);
    return length !== null && Buffer.byteLength(body) >= Number(length[1]);
  };
  await waitFor(complete);
  assert.match(text, /^HTTP\/1\.1 200 /);
  return { servedBy: /x-served-by: ([\d.]+)/i.exec(text)![1], socket };
}

test('WORKERS=2: two threads of one process serve the port, and SIGTERM stops both with keep-alive connections open', async () => {
  const { processTree } = await import('../bench/rss.ts');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ib-'));
  const port = await freePort();
  const server = await startServer({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info', WORKERS: '2', RATE_LIMITS: 'off' });
  const sockets: net.Socket[] = [];
  try {
    await waitFor(() => server.out().stdout.includes('with 2 threads'), 60_000);
    assert.match(server.out().stdout, /search sets: a copy in each serving thread \(SEARCH_SETS=auto\)/, 'an empty board: a copy a thread');
    const pid = server.child.pid!;
    assert.deepEqual(processTree(pid), [pid], 'one process: the threads are in it');
    // The kernel gives each new connection to one of the threads waiting on the port: ask until both answered.
    const seen = new Set<string>();
    for (let i = 0; i < 40 && seen.size < 2; i++) {
      const { servedBy, socket } = await getOnNewConnection(port);
      sockets.push(socket);
      seen.add(servedBy);
    }
    assert.equal(seen.size, 2, `two threads answer: ${[...seen]}`);
    for (const by of seen) assert.match(by, new RegExp(`^${pid}\\.\\d+$`), 'each a thread of the one process');

    // Each thread now holds idle keep-alive connections; stopping closes them and exits 0.
    const closed = sockets.filter((s) => !s.destroyed).map((s) => new Promise((r) => s.once('close', r)));
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0);
    await Promise.all(closed);
  } finally {
    for (const s of sockets) s.destroy();
    server.child.kill('SIGKILL');
  }
});
