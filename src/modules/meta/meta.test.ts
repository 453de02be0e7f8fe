import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { eachDatabase, getJson, testUnlessProcs, type Ctx } from '../../../test/helpers.ts';
import { createPost, createUser } from '../../../test/factories.ts';

const PACKAGE_VERSION = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../../package.json'), 'utf8')).version;
const POST_QUERY_PARAMS = ['offset', 'limit', 'search', 'uploader', 'tag', 'sortBy', 'contentRating', 'minLikes', 'dateFrom', 'dateTo'];
const REFERENCE_READS = [
  'GET /api',
  'GET /api/methods',
  'GET /api/posts',
  'GET /api/posts/<id>',
  'GET /api/tags',
  'GET /api/pools',
  'GET /api/stats',
  'GET /api/public/status',
  'GET /api/users/<username>',
];

/**
 * Every "METHOD /path" the app really routes, read from Fastify's own route tree, so a route
 * added without showing up in GET /api is caught. The docs UI and the OpenAPI file are the
 * documentation itself (named in `usage`), not endpoints of the API.
 */
function appRoutes(tree: string): string[] {
  const out: string[] = [];
  const stack: string[] = [];
  for (const line of tree.split('\n')) {
    const m = /^((?:│ {3}| {4})*)[├└]── (\S+) \(([^)]+)\)$/.exec(line);
    if (!m) continue;
    const depth = m[1].length / 4;
    stack.length = depth;
    stack.push(m[2]);
    const url = stack.join('');
    if (!url.startsWith('/api') || url.startsWith('/api/docs') || url === '/api/openapi.json') continue;
    for (const method of m[3].split(', ')) if (method !== 'HEAD') out.push(`${method} ${url.replace(/:(\w+)/g, '<$1>')}`);
  }
  return out.sort();
}

eachDatabase('meta: GET /api, /api/methods, errors, OpenAPI and docs', (ctx: Ctx) => {
  const sample: Record<string, string> = {};

  before(async () => {
    const uid = await createUser(ctx.database, { username: 'alice' });
    sample.id = String(await createPost(ctx.database, { uploaderId: uid, createdAt: ctx.clock.now() - 1000 }));
    sample.username = 'alice';
  });
  const concrete = (label: string) => label.split(' ')[1].replace(/<(\w+)>/g, (_, k) => sample[k]);

  test('GET /api names the API, its version 1.0 (not the service version) and points to /api/docs', async () => {
    const res = await getJson(ctx.app, '/api');
    assert.equal(res.status, 200);
    assert.equal(typeof res.body.name, 'string');
    assert.ok(res.body.name.length > 0);
    assert.equal(res.body.version, '1.0');
    const status = await getJson(ctx.app, '/api/public/status');
    assert.equal(status.body.version, PACKAGE_VERSION);
    assert.notEqual(res.body.version, status.body.version, 'API and service versions are separate values');
    assert.equal(typeof res.body.description, 'string');
    assert.ok(res.body.description.length > 0);
    assert.match(res.body.usage, /\/api\/docs/);
  });

  testUnlessProcs(
    'GET /api lists every /api route the app has, each with a description',
    "it compares with the app object's route table (printRoutes); the next test has every listed route answer",
    async () => {
      const { endpoints } = (await getJson(ctx.app, '/api')).body;
      const routes = appRoutes(ctx.app.printRoutes({ commonPrefix: false }));
      for (const r of REFERENCE_READS) assert.ok(routes.includes(r), `fixture check: the app routes ${r}`);
      assert.deepEqual(Object.keys(endpoints).sort(), routes);
      for (const [label, text] of Object.entries(endpoints)) assert.ok(typeof text === 'string' && text.length > 0, label);
    },
  );

  test('every GET endpoint listed answers (no 404 or 405)', async () => {
    const { endpoints } = (await getJson(ctx.app, '/api')).body;
    for (const label of Object.keys(endpoints).filter((l) => l.startsWith('GET '))) {
      const res = await ctx.app.inject({ method: 'GET', url: concrete(label) });
      // Routes behind a session may answer 401 and an unknown id 404 for that resource; none may be unrouted or broken.
      const unrouted = res.statusCode === 405 || (res.statusCode === 404 && res.json().error.startsWith('Not found: GET'));
      assert.ok(!unrouted && res.statusCode < 500, `${label} -> ${res.statusCode} ${res.body}`);
    }
  });

  test('GET /api/methods gives the methods overall and per path', async () => {
    const res = await getJson(ctx.app, '/api/methods');
    assert.equal(res.status, 200);
    assert.ok(Array.isArray(res.body.methods));
    const { endpoints } = (await getJson(ctx.app, '/api')).body;
    for (const label of Object.keys(endpoints)) {
      const [method, url] = label.split(' ');
      assert.ok(res.body.methods.includes(method), `${method} is listed`);
      assert.ok(res.body.paths[url]?.includes(method), `${label} is in paths`);
    }
    assert.ok(res.body.paths['/api/posts/<id>'].includes('GET'));
    assert.deepEqual(Object.keys(res.body.paths).sort(), [...new Set(Object.keys(endpoints).map((l) => l.split(' ')[1]))].sort());
  });

  test('an unknown route is 404 JSON { error, status }', async () => {
    for (const url of ['/api/nope', '/api/posts/1/nope', '/nowhere', '/api/user']) {
      const res = await ctx.app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 404, url);
      assert.match(String(res.headers['content-type']), /application\/json/);
      const body = res.json();
      assert.equal(body.status, 404);
      assert.equal(typeof body.error, 'string');
    }
  });

  test('a known path with the wrong method is 405 with an Allow header', async () => {
    for (const [method, url] of [
      ['POST', '/api/posts'],
      ['DELETE', '/api/posts'],
      ['PUT', `/api/posts/${sample.id}`],
      ['PATCH', '/api/tags'],
    ] as const) {
      const res = await ctx.app.inject({ method, url });
      assert.equal(res.statusCode, 405, `${method} ${url}`);
      const allow = String(res.headers.allow).split(/,\s*/);
      assert.ok(allow.includes('GET'), `Allow: ${res.headers.allow}`);
      assert.ok(!allow.includes(method));
      assert.deepEqual(Object.keys(res.json()).sort(), ['error', 'status']);
      assert.equal(res.json().status, 405);
    }
  });

  test('GET /api/openapi.json is OpenAPI 3 and documents every endpoint and every posts parameter', async () => {
    const res = await getJson(ctx.app, '/api/openapi.json');
    assert.equal(res.status, 200);
    const doc = res.body;
    assert.match(doc.openapi, /^3\./);
    assert.equal(doc.info.version, '1.0');
    const { endpoints } = (await getJson(ctx.app, '/api')).body;
    for (const label of Object.keys(endpoints)) {
      const [method, url] = label.split(' ');
      const p = url.replace(/<(\w+)>/g, '{$1}');
      assert.ok(doc.paths[p]?.[method.toLowerCase()], `${label} is documented as ${method.toLowerCase()} ${p}`);
    }
    const params = doc.paths['/api/posts'].get.parameters.filter((x: any) => x.in === 'query').map((x: any) => x.name);
    for (const name of POST_QUERY_PARAMS) assert.ok(params.includes(name), `/api/posts documents '${name}'`);
    assert.ok(params.includes('before'), 'and the keyset cursor');
    const idParam = doc.paths['/api/posts/{id}'].get.parameters.find((x: any) => x.name === 'id');
    assert.equal(idParam.in, 'path');
  });

  test('the OpenAPI document gives the multipart endpoints their form fields, files as binary, so Try it out offers a file picker', async () => {
    const { paths } = (await getJson(ctx.app, '/api/openapi.json')).body;
    const form = (p: string, method: string) => paths[p][method].requestBody?.content?.['multipart/form-data']?.schema;
    const upload = form('/api/upload', 'post');
    assert.deepEqual(upload?.properties?.file, { type: 'string', format: 'binary', description: upload?.properties?.file?.description });
    for (const field of ['title', 'tags', 'contentRating', 'isNSFW', 'description']) assert.ok(upload.properties[field], `upload documents '${field}'`);
    assert.deepEqual(upload.required, ['file']);
    assert.equal(form('/api/search/similar', 'post')?.properties?.file?.format, 'binary');
    const me = paths['/api/users/me'].patch.requestBody.content;
    assert.equal(me['multipart/form-data']?.schema?.properties?.avatar?.format, 'binary');
    assert.ok(me['multipart/form-data'].schema.properties.bio);
    assert.ok(me['application/json']?.schema?.properties?.bio, 'the JSON form stays documented');
  });

  test('a multipart upload with the documented fields is not refused by body validation', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/search/similar',
      headers: { 'content-type': 'multipart/form-data; boundary=x' },
      payload: '--x\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\nnot a png\r\n--x--\r\n',
    });
    assert.notEqual(res.statusCode, 500);
    assert.doesNotMatch(res.body, /body must/);
  });

  test('GET /api/docs is an HTML page whose assets are all local and served', async () => {
    let url = '/api/docs';
    let res = await ctx.app.inject({ method: 'GET', url });
    for (let hops = 0; res.statusCode >= 300 && res.statusCode < 400 && hops < 5; hops++) {
      url = new URL(String(res.headers.location), `http://localhost${url}`).pathname;
      res = await ctx.app.inject({ method: 'GET', url });
    }
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /text\/html/);
    const refs = [...res.body.matchAll(/<(?:script|link)\b[^>]*?\b(?:src|href)=["']([^"']+)["']/gi)].map((m) => m[1]);
    assert.ok(refs.length > 0, 'the page loads scripts or styles');
    for (const ref of refs) assert.doesNotMatch(ref, /^(https?:)?\/\//i, `${ref} is not fetched from another site`);
    const scripts = [...res.body.matchAll(/<script\b[^>]*?\bsrc=["']([^"']+)["']/gi)].map((m) => m[1]);
    assert.ok(scripts.length > 0);
    for (const src of scripts) {
      const asset = await ctx.app.inject({ method: 'GET', url: new URL(src, `http://localhost${url}`).pathname });
      assert.equal(asset.statusCode, 200, src);
      assert.ok(asset.body.length > 0);
    }
  });

  test('the docs and the web pages work over plain HTTP on any host name: no upgrade-insecure-requests', async () => {
    let url = '/api/docs';
    let res = await ctx.app.inject({ method: 'GET', url, headers: { host: 'board.lan:3000' } });
    for (let hops = 0; res.statusCode >= 300 && res.statusCode < 400 && hops < 5; hops++) {
      assert.doesNotMatch(String(res.headers.location), /^https:/, 'no redirect to HTTPS');
      url = new URL(String(res.headers.location), `http://board.lan:3000${url}`).pathname;
      res = await ctx.app.inject({ method: 'GET', url, headers: { host: 'board.lan:3000' } });
    }
    assert.equal(res.statusCode, 200);
    const csp = String(res.headers['content-security-policy'] ?? '');
    assert.match(csp, /default-src 'self'/, 'the docs page keeps a policy');
    assert.doesNotMatch(csp, /upgrade-insecure-requests/);
    const page = await ctx.app.inject({ method: 'GET', url: '/posts/1', headers: { host: '192.168.1.20:3000', accept: 'text/html' } });
    assert.doesNotMatch(String(page.headers['content-security-policy'] ?? ''), /upgrade-insecure-requests/);
    assert.doesNotMatch(page.body, /https?:\/\/(127\.0\.0\.1|localhost)/, 'no loopback address written into the page');
  });
});
