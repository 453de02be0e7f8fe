// Broken multipart bodies on every route that reads one: a 400 that says what is wrong, never a
// 5xx, and no temp file left behind.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { eachDatabase, tmpFiles } from './helpers.ts';
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
