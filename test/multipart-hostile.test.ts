// Broken multipart bodies on every route that reads one: a 400 that says what is wrong, never a
// 5xx, and no temp file left behind.
import assert from 'node:assert/strict';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { before, test } from 'node:test';
import { eachDatabase, listeningPort, tmpFiles } from './helpers.ts';
import { register } from './auth-helpers.ts';
import { png } from './media-fixtures.ts';

const ROUTES = [
  { method: 'POST', url: '/api/upload', file: 'file', fields: { tags: 'cat' } },
  { method: 'POST', url: '/api/search/similar', file: 'file', fields: {} },
  { method: 'PATCH', url: '/api/users/me', file: 'avatar', fields: { bio: 'hi' } },
] as const;

const part = (boundary: string, disposition: string, body: Buffer | string, type?: string) =>
  Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; ${disposition}\r\n${type ? `Content-Type: ${type}\r\n` : ''}\r\n`),
    Buffer.from(body),
    Buffer.from('\r\n'),
  ]);

interface Broken {
  what: string;
  contentType: string;
  body: Buffer;
  /** Words the error must contain. */
  says: RegExp;
}

function brokenBodies(file: string, fields: Record<string, string>, image: Buffer): Broken[] {
  const b = 'ibBoundary42';
  const text = Object.entries(fields).map(([k, v]) => part(b, `name="${k}"`, v));
  const filePart = part(b, `name="${file}"; filename="a.png"`, image, 'image/png');
  const whole = Buffer.concat([...text, filePart, Buffer.from(`--${b}--\r\n`)]);
  const long = 'x'.repeat(300);
  return [
    { what: 'a body that ends early', contentType: `multipart/form-data; boundary=${b}`, body: whole.subarray(0, whole.length - 400), says: /ended|end/i },
    {
      what: 'a body cut inside the headers',
      contentType: `multipart/form-data; boundary=${b}`,
      body: Buffer.from(`--${b}\r\nContent-Disposition: form-da`),
      says: /ended|end/i,
    },
    { what: 'no boundary', contentType: 'multipart/form-data', body: whole, says: /boundary/i },
    {
      what: 'a 300-character boundary',
      contentType: `multipart/form-data; boundary=${long}`,
      body: Buffer.concat([part(long, `name="${file}"; filename="a.png"`, image, 'image/png'), Buffer.from(`--${long}--\r\n`)]),
      says: /boundary/i,
    },
    {
      what: 'a part without a name',
      contentType: `multipart/form-data; boundary=${b}`,
      body: Buffer.concat([part(b, 'filename="a.png"', image, 'image/png'), Buffer.from(`--${b}--\r\n`)]),
      says: /name/i,
    },
    {
      what: 'the file field twice',
      contentType: `multipart/form-data; boundary=${b}`,
      body: Buffer.concat([filePart, filePart, Buffer.from(`--${b}--\r\n`)]),
      says: new RegExp(`one|twice|${file}`, 'i'),
    },
    {
      what: 'a NUL in a text field',
      contentType: `multipart/form-data; boundary=${b}`,
      body: Buffer.concat([part(b, `name="${Object.keys(fields)[0] ?? file}"`, 'a\u0000b'), filePart, Buffer.from(`--${b}--\r\n`)]),
      says: new RegExp(Object.keys(fields)[0] ?? file),
    },
    {
      what: 'a NUL in a file name',
      contentType: `multipart/form-data; boundary=${b}`,
      body: Buffer.concat([part(b, `name="${file}"; filename="a\u0000.png"`, image, 'image/png'), Buffer.from(`--${b}--\r\n`)]),
      says: new RegExp(file),
    },
    {
      what: 'a body without any part',
      contentType: `multipart/form-data; boundary=${b}`,
      body: Buffer.from('garbage that is not multipart at all'),
      says: /./,
    },
  ];
}

eachDatabase('broken multipart bodies', (ctx) => {
  let cookie: string;
  let image: Buffer;
  before(async () => {
    cookie = (await register(ctx.app, 'multi_h')).headers.cookie;
    image = await png(11, 400, 300);
  });

  for (const r of ROUTES) {
    test(`${r.method} ${r.url} answers 400 naming the problem, and keeps no temp file`, async () => {
      for (const c of brokenBodies(r.file, r.fields, image)) {
        const res = await ctx.app.inject({ method: r.method, url: r.url, headers: { cookie, 'content-type': c.contentType }, payload: c.body });
        assert.equal(res.statusCode, 400, `${c.what}: ${res.statusCode} ${res.body}`);
        const body = res.json();
        assert.equal(body.status, 400);
        assert.match(body.error, c.says, `${c.what}: ${body.error}`);
        assert.deepEqual(tmpFiles(ctx), [], `${c.what}: temp files left`);
      }
    });
  }
});

// Issue 56: a part busboy skips (no Content-Disposition, or one that is not form-data) left the
// request unanswered when its content arrived in one piece larger than busboy's 16 KiB buffer
// with the closing boundary: every size is sent, over a real socket, each request bounded.
const SIZES = [1_000, 30_000, 60_000, 1_000_000];
const B = 'XyZ';

/** One part of `size` bytes with these header lines, then the closing boundary. */
const onePart = (headers: string, size: number) =>
  Buffer.concat([Buffer.from(`--${B}\r\n${headers}\r\n\r\n`), Buffer.alloc(size, 7), Buffer.from(`\r\n--${B}--\r\n`)]);

const UNUSABLE = [
  { what: 'no Content-Disposition', headers: 'Content-Type: image/png', says: /no Content-Disposition.*form-data; name=/ },
  {
    what: 'Content-Disposition: attachment',
    headers: 'Content-Disposition: attachment; filename="a.png"\r\nContent-Type: image/png',
    says: /attachment.*form-data; name=/,
  },
  {
    what: 'form-data without a name',
    headers: 'Content-Disposition: form-data; filename="a.png"\r\nContent-Type: image/png',
    says: /no name.*form-data; name=/,
  },
];

/** The answer as text, or why there was none, within `ms`. */
async function answer(port: number, method: string, url: string, headers: Record<string, string>, body: Buffer, ms = 3000) {
  const started = Date.now();
  try {
    const res = await fetch(`http://127.0.0.1:${port}${url}`, { method, headers, body: new Uint8Array(body), signal: AbortSignal.timeout(ms) });
    return { status: res.status, text: await res.text(), ms: Date.now() - started };
  } catch (err) {
    return { status: 0, text: `no answer within ${ms} ms (${(err as Error).name})`, ms: Date.now() - started };
  }
}

/** Sends a request over a raw socket, the body in the pieces given with a pause between them; the raw answer. */
function rawExchange(port: number, head: string, pieces: Buffer[], ms = 3000): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.setNoDelay(true);
    let got = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(`no answer within ${ms} ms: ${got}`);
    }, ms);
    socket.on('data', (d) => {
      got += d.toString('latin1');
      const end = got.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(got)?.[1];
      if (end !== -1 && length !== undefined && got.length >= end + 4 + Number(length)) {
        clearTimeout(timer);
        socket.destroy();
        resolve(got);
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(got);
    });
    socket.write(head);
    void (async () => {
      for (const piece of pieces) {
        if (socket.destroyed) return;
        socket.write(piece);
        await sleep(15);
      }
    })();
  });
}

eachDatabase('multipart parts without a usable Content-Disposition, over a socket', (ctx) => {
  let cookie: string;
  let port: number;
  before(async () => {
    cookie = (await register(ctx.app, 'multi_cd')).headers.cookie;
    port = await listeningPort(ctx);
  });

  for (const r of ROUTES) {
    test(`${r.method} ${r.url}: 400 at once naming the problem, at every size, and no temp file`, async () => {
      for (const u of UNUSABLE) {
        for (const size of SIZES) {
          const label = `${u.what}, ${size} bytes`;
          const headers = { cookie, 'content-type': `multipart/form-data; boundary=${B}` };
          const res = await answer(port, r.method, r.url, headers, onePart(u.headers, size));
          assert.equal(res.status, 400, `${label}: ${res.status} ${res.text}`);
          const body = JSON.parse(res.text);
          assert.equal(body.status, 400, label);
          assert.match(body.error, u.says, `${label}: ${body.error}`);
          assert.ok(res.ms < 2000, `${label}: answered after ${res.ms} ms`);
          assert.deepEqual(tmpFiles(ctx), [], `${label}: temp files left`);
        }
      }
    });
  }

  test('the body in pieces (split inside the boundary, the headers and the blank line), after a valid file part: 400, no temp file', async () => {
    const image = await png(12, 64, 48);
    const good = Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`);
    const bad = Buffer.from(`\r\n--${B}\r\nContent-Type: image/png\r\n\r\n`);
    const body = Buffer.concat([good, image, bad, Buffer.alloc(40_000, 7), Buffer.from(`\r\n--${B}--\r\n`)]);
    // Cut points: inside the first boundary, inside the file, inside the second boundary, inside its headers, inside the blank line, then the rest.
    const at = good.length + image.length;
    const cuts = [3, good.length + 10, at + 4, at + 12, at + bad.length - 2, at + bad.length + 20_000];
    const pieces = cuts.map((c, i) => body.subarray(i === 0 ? 0 : cuts[i - 1], c)).concat([body.subarray(cuts.at(-1))]);
    for (const r of ROUTES.filter((x) => x.file === 'file')) {
      const head =
        `${r.method} ${r.url} HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: ${cookie}\r\n` +
        `Content-Type: multipart/form-data; boundary=${B}\r\nContent-Length: ${body.length}\r\n\r\n`;
      const raw = await rawExchange(port, head, pieces);
      assert.match(raw, /^HTTP\/1\.1 400 /, `${r.url}: ${raw}`);
      assert.match(raw, /no Content-Disposition/, `${r.url}: ${raw}`);
      assert.deepEqual(tmpFiles(ctx), [], `${r.url}: temp files left`);
    }
  });
});
