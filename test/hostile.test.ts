// Malformed requests against every route the OpenAPI document lists, signed in as an admin so each
// reaches its validation and service: none may answer 5xx, and every error is `{ error, status }`
// (`{ success: false, error, message }` on Danbooru's API at the root).
import assert from 'node:assert/strict';
import { before, beforeEach, test } from 'node:test';
import http from 'node:http';
import { eachDatabase, listeningPort } from './helpers.ts';
import { register, setAccount } from './auth-helpers.ts';
import { createPost } from './factories.ts';
import { multipart } from './multipart.ts';

type Injected = { statusCode: number; headers: Record<string, unknown>; body: string };

interface Route {
  method: string;
  path: string;
  query: string[];
  body: string[];
  danbooru: boolean;
  stream: boolean;
}

const NUL = 'a\u0000b';
const LONE = 'a\uD800b';

/** Path values a client could put in any `{param}`. */
const PATH_VALUES = [
  '%00',
  'a%00b',
  '%E0%A4%A',
  '%ED%A0%80',
  '%FF',
  'x'.repeat(300),
  '-1',
  '0',
  '1.5',
  '1e3',
  '99999999999999999999999',
  '%20',
  '..%2F..%2Fetc',
];
/** Query values for every query parameter the route declares. */
const QUERY_VALUES = ['a%00b', '%00', '%ED%A0%80', '', '-1', '1e999', '99999999999999999999999', 'x'.repeat(5000), '[]', '%'];
/** Whole bodies that are not what any JSON route accepts. */
const RAW_BODIES: { type: string; body: string | Buffer }[] = [
  { type: 'application/json', body: '{' },
  { type: 'application/json', body: '' },
  { type: 'application/json', body: 'null' },
  { type: 'application/json', body: '[]' },
  { type: 'application/json', body: '"text"' },
  { type: 'application/json', body: '1e400' },
  { type: 'application/json', body: '{"__proto__":{"admin":true}}' },
  { type: 'application/json', body: '['.repeat(20_000) + ']'.repeat(20_000) },
  { type: 'application/json', body: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]) },
  { type: 'text/plain', body: 'hello' },
  { type: 'application/x-www-form-urlencoded', body: 'a=b' },
  { type: 'multipart/form-data', body: 'x' },
  { type: 'multipart/form-data; boundary=zz', body: '--zz\r\nContent-Disposition: form-data; name="a"\r\n\r\nb' },
];
/** Headers any route may meet: broken credentials and negotiation headers. */
const HEADERS: Record<string, string>[] = [
  { cookie: 'ib_session=%00%ff' },
  { cookie: `ib_session=${'x'.repeat(4000)}` },
  { 'x-api-key': 'x'.repeat(8000) },
  { 'x-api-key': '' },
  { 'x-forwarded-for': 'not an address, ::::' },
  { accept: 'text/html' },
  { 'accept-encoding': 'gzip;q=nonsense, br;q=-1' },
  { range: 'bytes=garbage' },
  { 'if-none-match': '*' },
];
/** What goes into each declared body field. */
const FIELD_VALUES: unknown[] = [NUL, LONE, '', 'x'.repeat(100_000), -1, 1e308, 1.5, true, null, [], {}, [NUL], { a: NUL }];

function routesOf(doc: any): Route[] {
  const routes: Route[] = [];
  for (const [path, ops] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(ops)) {
      const query = (op.parameters ?? []).filter((p: any) => p.in === 'query').map((p: any) => p.name);
      const schema = op.requestBody?.content?.['application/json']?.schema;
      // Danbooru's routes answer errors in its shape; the rest (ours, and /healthz, /readyz) in ours.
      const danbooru = (op.tags ?? []).includes('danbooru');
      // A stream answers 200 and stays open: asked over a socket, and left once it has opened.
      const stream = op.responses?.['200']?.content?.['text/event-stream'] !== undefined;
      routes.push({ method: method.toUpperCase(), path, query, body: Object.keys(schema?.properties ?? {}), danbooru, stream });
    }
  }
  return routes;
}

const fill = (path: string, value: string) => path.replace(/\{[^}]+\}/g, value);

/** Every malformed request tried on one route. */
function* malformed(r: Route): Generator<{ url: string; type?: string; body?: string | Buffer; headers?: Record<string, string> }> {
  const hasBody = r.body.length > 0 || ['POST', 'PUT', 'PATCH'].includes(r.method);
  const okBody = hasBody ? JSON.stringify(Object.fromEntries(r.body.map((f) => [f, 'x']))) : undefined;
  const withBody = (url: string) => (hasBody ? { url, type: 'application/json', body: okBody } : { url });
  if (r.path.includes('{')) for (const v of PATH_VALUES) yield withBody(fill(r.path, v));
  const base = fill(r.path, '1');
  for (const q of r.query) for (const v of QUERY_VALUES) yield withBody(`${base}?${q}=${v}`);
  yield withBody(`${base}?unknown%00=1`);
  for (const headers of HEADERS) yield { ...withBody(base), headers };
  if (!hasBody) return;
  for (const b of RAW_BODIES) yield { url: base, ...b };
  for (const f of r.body) for (const v of FIELD_VALUES) yield { url: base, type: 'application/json', body: JSON.stringify({ [f]: v }) };
  yield { url: base, type: 'application/json', body: JSON.stringify({ [NUL]: 1 }) };
}

function assertJsonError(res: Injected, what: string, danbooru = false): void {
  assert.ok(res.statusCode < 500, `${what} answered ${res.statusCode}: ${res.body.slice(0, 300)}`);
  if (res.statusCode < 400) return;
  assert.match(String(res.headers['content-type']), /^application\/json/, `${what}: JSON error`);
  const body = JSON.parse(res.body);
  assert.equal(typeof body.error, 'string', `${what}: error text`);
  // Danbooru's API at the root answers in its own shape.
  if (danbooru) assert.deepEqual([body.success, typeof body.message], [false, 'string'], `${what}: Danbooru's error shape`);
  else assert.equal(body.status, res.statusCode, `${what}: status in the body`);
}

/** GET `url` over a socket: a stream that opens is left at once (status 200, no body); an error is read whole. */
function openOnce(port: number, url: string, headers: Record<string, string>): Promise<Injected> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: url, headers }, (res) => {
      const answer = (body: string) => ({ statusCode: res.statusCode ?? 0, headers: res.headers, body });
      if (res.statusCode === 200) {
        req.destroy();
        return resolve(answer(''));
      }
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        body += c;
      });
      res.on('end', () => resolve(answer(body)));
    });
    req.on('error', reject);
  });
}

eachDatabase('hostile requests', (ctx) => {
  let cookie: string;
  let listening: number | null = null;
  const port = async () => (listening ??= await listeningPort(ctx));
  let n = 0;
  /** A fresh admin for each test: the malformed requests may sign one out or change its password. */
  async function admin(): Promise<string> {
    const name = `admin_h${++n}`;
    const account = await register(ctx.app, name);
    await setAccount(ctx.database, name, { role: 'admin' });
    return account.headers.cookie;
  }
  before(async () => {
    const uploader = await register(ctx.app, 'uploader_h');
    await createPost(ctx.database, { uploaderId: Number(uploader.id), createdAt: ctx.clock.now(), tags: ['a'] });
  });
  beforeEach(async () => {
    cookie = await admin();
  });

  test('no malformed request to any route answers 5xx, and every error is { error, status }', async (t) => {
    const doc = JSON.parse((await ctx.app.inject({ url: '/api/openapi.json' })).body);
    const routes = routesOf(doc);
    assert.ok(routes.length >= 30, `the document lists the routes (${routes.length})`);
    let tried = 0;
    const perRoute: string[] = [];
    for (const r of routes) {
      const before = tried;
      for (const m of malformed(r)) {
        const headers: Record<string, string> = { cookie, ...m.headers };
        if (m.type) headers['content-type'] = m.type;
        const res = r.stream
          ? await openOnce(await port(), m.url, headers)
          : await ctx.app.inject({ method: r.method as 'GET', url: m.url, headers, payload: m.body });
        assertJsonError(res, `${r.method} ${m.url.slice(0, 120)} ${m.type ?? ''} ${String(m.body ?? '').slice(0, 80)}`, r.danbooru);
        tried++;
      }
      perRoute.push(`${r.method} ${r.path} ${tried - before}`);
    }
    t.diagnostic(perRoute.join(', '));
    t.diagnostic(`${tried} malformed requests over ${routes.length} routes, 0 answered 5xx`);
  });

  test('a NUL or an unpaired surrogate is a 400 naming the field, on every engine', async () => {
    const cases: [string, string, string | undefined, string][] = [
      ['GET', '/api/tags?author=a%00b', undefined, 'author'],
      ['GET', '/api/users/%00', undefined, 'username'],
      ['GET', '/api/posts?tags=cat%00', undefined, 'tags'],
      ['POST', '/api/comments', JSON.stringify({ postId: '1', content: 'hi\u0000' }), 'content'],
      ['POST', '/api/comments', '{"postId":"1","content":"hi \\ud800 there"}', 'content'],
      ['PATCH', '/api/users/me', JSON.stringify({ bio: 'x\u0000' }), 'bio'],
    ];
    for (const [method, url, payload, field] of cases) {
      const headers: Record<string, string> = { cookie };
      if (payload) headers['content-type'] = 'application/json';
      const res = await ctx.app.inject({ method: method as 'GET', url, headers, payload });
      assert.equal(res.statusCode, 400, `${method} ${url}: ${res.body}`);
      const body = res.json();
      assert.equal(body.status, 400);
      assert.ok(
        body.details.some((d: { field: string }) => d.field === field),
        `${method} ${url} names '${field}': ${res.body}`,
      );
    }
  });

  test('a bad percent-escape and an over-long path segment get JSON errors', async () => {
    const bad = await ctx.app.inject({ url: '/api/users/%E0%A4%A' });
    assertJsonError(bad, 'bad escape');
    assert.equal(bad.statusCode, 400);
    assert.match(bad.json().error, /path/i);
    const long = await ctx.app.inject({ url: `/api/users/${'x'.repeat(300)}` });
    assertJsonError(long, 'long param');
    assert.equal(long.statusCode, 414);
  });

  test('a multipart body on a JSON route is refused with a JSON error', async () => {
    const form = multipart({ content: 'hi' });
    const res = await ctx.app.inject({ method: 'POST', url: '/api/comments', headers: { cookie, ...form.headers }, payload: form.payload });
    assertJsonError(res, 'multipart to a JSON route');
    assert.ok(res.statusCode >= 400);
  });
});
