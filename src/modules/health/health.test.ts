import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { databaseKinds, eachDatabase, freshDatabase, type DbKind } from '../../../test/helpers.ts';
import { buildApp } from '../../app.ts';
import { testConfig, type Config } from '../../config.ts';

eachDatabase('health', (ctx) => {
  test('GET /healthz: 200 ok; GET /readyz: 200 with the database and the media store checked, leaving no probe file', async () => {
    const live = await ctx.app.inject({ method: 'GET', url: '/healthz' });
    assert.equal(live.statusCode, 200);
    assert.deepEqual(live.json(), { status: 'ok' });
    const ready = await ctx.app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(ready.statusCode, 200);
    const body = ready.json();
    assert.equal(body.status, 'ok');
    assert.deepEqual(body.failing, []);
    assert.deepEqual(Object.keys(body.checks).sort(), ['database', 'media']);
    for (const c of Object.values(body.checks) as { ok: boolean }[]) assert.equal(c.ok, true);
    assert.equal(ready.headers['cache-control'], 'no-store');
    const probes = path.join(ctx.dataDir, 'media', '.readyz');
    assert.deepEqual(fs.existsSync(probes) ? fs.readdirSync(probes) : [], [], 'the probe file is deleted');
  });
});

/** A board of its own with its own app (these tests break what the app depends on). */
async function ownApp(kind: DbKind, overrides: Partial<Config> = {}, logStream?: NodeJS.WritableStream) {
  const fresh = await freshDatabase(kind);
  const config = testConfig({ dataDir: fresh.dataDir, ...overrides });
  const app = await buildApp(config, { database: fresh.database, logStream, jobs: { run: false } });
  await app.ready();
  return {
    app,
    fresh,
    done: async () => {
      await app.close();
      await fresh.cleanup().catch(() => {});
    },
  };
}

for (const kind of databaseKinds()) {
  test(`[${kind}] a closed database makes /readyz 503 naming the database, while /healthz stays 200`, async () => {
    const { app, fresh, done } = await ownApp(kind);
    try {
      await fresh.database.close();
      const res = await app.inject({ method: 'GET', url: '/readyz' });
      assert.equal(res.statusCode, 503);
      const body = res.json();
      assert.equal(body.status, 'not ready');
      assert.deepEqual(body.failing, ['database']);
      assert.equal(body.checks.database.ok, false);
      assert.equal(body.checks.media.ok, true);
      assert.equal((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
    } finally {
      await done();
    }
  });
}

test('a media folder that cannot be written makes /readyz 503 naming the media store', async () => {
  const { app, fresh, done } = await ownApp('sqlite');
  try {
    const media = path.join(fresh.dataDir, 'media');
    fs.rmSync(media, { recursive: true });
    fs.writeFileSync(media, 'not a folder');
    const res = await app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(res.statusCode, 503);
    assert.deepEqual(res.json().failing, ['media']);
  } finally {
    await done();
  }
});

test('with REDIS_URL naming a closed port, /readyz is 503 naming redis', async () => {
  const closed = net.createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const { port } = closed.address() as net.AddressInfo;
  await new Promise((r) => closed.close(r));
  const { app, done } = await ownApp('sqlite', { rateLimits: true, redisUrl: `redis://127.0.0.1:${port}` });
  try {
    const res = await app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(res.statusCode, 503);
    const body = res.json();
    assert.deepEqual(body.failing, ['redis']);
    assert.equal(body.checks.database.ok, true);
  } finally {
    await done();
  }
});

test('with a reachable REDIS_URL, /readyz checks it and is 200', { skip: process.env.REDIS_URL ? false : 'REDIS_URL is not set' }, async () => {
  const { app, done } = await ownApp('sqlite', { rateLimits: true, redisUrl: process.env.REDIS_URL! });
  try {
    const res = await app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().checks.redis.ok, true);
  } finally {
    await done();
  }
});

test('health checks are not rate-limited and not logged at info, while the API is both', async () => {
  const logs = new PassThrough();
  let logText = '';
  logs.on('data', (d) => (logText += d));
  const { app, done } = await ownApp('sqlite', { rateLimits: true, logLevel: 'info' }, logs);
  try {
    const codes = new Set<number>();
    for (let i = 0; i < 80; i++) {
      for (const url of ['/healthz', '/readyz']) {
        const res = await app.inject({ method: 'GET', url, remoteAddress: '203.0.113.9' });
        codes.add(res.statusCode);
        assert.equal(res.headers['x-ratelimit-limit'], undefined);
      }
    }
    assert.deepEqual([...codes], [200], '160 checks from one address, all 200');
    let api = 0;
    for (let i = 0; i < 61; i++) api = (await app.inject({ method: 'GET', url: '/api', remoteAddress: '203.0.113.9' })).statusCode;
    assert.equal(api, 429, 'the same address is limited on the API');
    assert.doesNotMatch(logText, /healthz|readyz/);
    assert.match(logText, /"url":"\/api"/, 'API requests are logged');
  } finally {
    await done();
  }
});

test('once draining, /readyz answers 503 draining while /healthz and the API still answer', async () => {
  const { app, done } = await ownApp('sqlite');
  try {
    app.readiness.drain();
    const res = await app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(res.statusCode, 503);
    assert.equal(res.json().status, 'draining');
    assert.equal((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
    assert.equal((await app.inject({ method: 'GET', url: '/api/posts' })).statusCode, 200);
  } finally {
    await done();
  }
});
