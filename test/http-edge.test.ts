// What reaches the server over a raw socket, before any route: Node's HTTP parser refusing a
// request, and a body over a limit written whole before the client reads (as a reverse proxy does).
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { buildApp, type App } from '../src/app.ts';
import { testConfig } from '../src/config.ts';
import { freshDatabase } from './helpers.ts';

interface RawAnswer {
  status: number;
  headers: string;
  body: string;
  /** A socket error on our side (EPIPE, ECONNRESET): what a proxy turns into 502. */
  error?: string;
}

/**
 * Writes `request` whole, as a proxy does, and reads the answer. Resolves once the answer is
 * complete and every byte was accepted, or when the socket closes or stalls (then `error` says why).
 */
function rawRequest(port: number, request: Buffer | string): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let error: string | undefined;
    let written = false;
    let answered = false;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const text = Buffer.concat(chunks).toString('utf8');
      const [head, ...rest] = text.split('\r\n\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
      const length = /content-length: (\d+)/i.exec(head);
      let body = rest.join('\r\n\r\n');
      if (length) body = Buffer.from(body).subarray(0, Number(length[1])).toString('utf8');
      if (!written) error ??= 'the server stopped reading the body';
      resolve({ status, headers: head, body, error });
    };
    const timer = setTimeout(finish, 10_000);
    socket.on('data', (c) => {
      chunks.push(c);
      const text = Buffer.concat(chunks).toString('utf8');
      const length = /content-length: (\d+)/i.exec(text);
      const split = text.indexOf('\r\n\r\n');
      answered = !!length && split >= 0 && Buffer.byteLength(text.slice(split + 4)) >= Number(length[1]);
      if (answered && written) finish();
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      error = err.code ?? err.message;
    });
    socket.on('close', finish);
    socket.write(request, (err) => {
      if (err) error = (err as NodeJS.ErrnoException).code ?? err.message;
      else written = true;
      if (answered) finish();
    });
  });
}

function assertJson(a: RawAnswer, status: number): { error: string; status: number } {
  assert.equal(a.status, status, `${a.headers}\n${a.body}`);
  assert.match(a.headers, /content-type: application\/json/i);
  const body = JSON.parse(a.body);
  assert.equal(body.status, status);
  assert.equal(typeof body.error, 'string');
  return body;
}

describe('the HTTP edge, over a raw socket', () => {
  let app: App;
  let port: number;
  let cleanup: () => Promise<void>;
  before(async () => {
    const fresh = await freshDatabase('sqlite');
    cleanup = fresh.cleanup;
    app = await buildApp(testConfig({ dataDir: fresh.dataDir, rateLimits: false }), { database: fresh.database });
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as net.AddressInfo).port;
  });
  after(async () => {
    await app.close();
    await cleanup();
  });

  test('a malformed request line gets a JSON 400 before the socket closes', async () => {
    const body = assertJson(await rawRequest(port, 'THIS IS NOT HTTP\r\n\r\n'), 400);
    assert.match(body.error, /malformed/i);
  });

  test('a malformed header gets a JSON 400', async () => {
    assertJson(await rawRequest(port, 'GET /api/posts HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n'), 400);
    assertJson(await rawRequest(port, 'GET /api/posts HTTP/1.1\r\nHost: x\r\nContent-Length: nope\r\n\r\n'), 400);
  });

  test('an HTTP/1.1 request without a Host header gets a JSON 400; HTTP/1.0 needs none', async () => {
    const body = assertJson(await rawRequest(port, 'GET /api/posts HTTP/1.1\r\n\r\n'), 400);
    assert.match(body.error, /Host header/);
    const old = await rawRequest(port, 'GET /healthz HTTP/1.0\r\n\r\n');
    assert.match(old.headers, /^HTTP\/1\.[01] 200/);
  });

  test('an Expect other than 100-continue gets a JSON 417, on every path', async () => {
    for (const path of ['/api/posts', '/healthz']) {
      const body = assertJson(await rawRequest(port, `GET ${path} HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\n\r\n`), 417);
      assert.match(body.error, /Expect: 'teapot' is not supported; only 100-continue is/);
    }
  });

  test('headers that are too large get a JSON 431', async () => {
    const body = assertJson(await rawRequest(port, `GET /api/posts HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(64 * 1024)}\r\n\r\n`), 431);
    assert.match(body.error, /too large/i);
  });

  test('a JSON body over the limit, written whole before reading, still gets its 413', async () => {
    const payload = Buffer.alloc(24 * 1024 * 1024, 'a');
    const head = `POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${payload.length}\r\n\r\n`;
    const a = await rawRequest(port, Buffer.concat([Buffer.from(head), payload]));
    assert.equal(a.error, undefined, 'the socket stayed open until the body was written');
    assertJson(a, 413);
  });

  test('a large body of a type no route reads, written whole, still gets its 415', async () => {
    const payload = Buffer.alloc(24 * 1024 * 1024, 'b');
    const head = `POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/xml\r\nContent-Length: ${payload.length}\r\n\r\n`;
    const a = await rawRequest(port, Buffer.concat([Buffer.from(head), payload]));
    assert.equal(a.error, undefined, 'the socket stayed open until the body was written');
    assertJson(a, 415);
  });
});
