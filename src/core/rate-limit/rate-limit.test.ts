import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { eachDatabase, testUnlessProcs } from '../../../test/helpers.ts';
import { createKeyOk, register, setAccount, type Account } from '../../../test/auth-helpers.ts';
import { buildApp, type App } from '../../app.ts';
import { clientKey } from './client-ip.ts';
import { decide } from './windows.ts';

const MINUTE = 60_000;

type Opts = { ip?: string; headers?: Record<string, string>; method?: 'GET' | 'POST' | 'PUT' | 'DELETE'; payload?: object };
const call = (app: App, url: string, o: Opts = {}) =>
  app.inject({ method: o.method ?? 'GET', url, remoteAddress: o.ip ?? '203.0.113.7', headers: o.headers, payload: o.payload });

/** Sends n requests; returns the status codes. */
async function burst(app: App, n: number, url: string, o: Opts = {}): Promise<number[]> {
  const codes: number[] = [];
  for (let i = 0; i < n; i++) codes.push((await call(app, url, o)).statusCode);
  return codes;
}

describe('rate-limit rules', () => {
  test('a request passes only when every window has room, and then counts in all of them', () => {
    const windows = [
      { key: 'a', limit: 2, ms: MINUTE },
      { key: 'b', limit: 5, ms: 3_600_000 },
    ];
    const d1 = decide(windows, [undefined, undefined], 1000);
    assert.equal(d1.allowed, true);
    assert.deepEqual(
      d1.windows.map((w) => [w.count, w.resetAt]),
      [
        [1, 61_000],
        [1, 3_601_000],
      ],
    );
    const d2 = decide(
      windows,
      [
        { count: 2, resetAt: 61_000 },
        { count: 3, resetAt: 3_601_000 },
      ],
      2000,
    );
    assert.equal(d2.allowed, false);
    assert.deepEqual(
      d2.windows.map((w) => w.count),
      [2, 3],
      'a refused request costs nothing',
    );
    const d3 = decide(
      windows,
      [
        { count: 2, resetAt: 61_000 },
        { count: 3, resetAt: 3_601_000 },
      ],
      61_000,
    );
    assert.equal(d3.allowed, true, 'the minute window reset');
    assert.deepEqual(
      d3.windows.map((w) => w.count),
      [1, 4],
    );
  });

  test('IPv4 clients count per address, IPv6 clients per /64', () => {
    assert.equal(clientKey('198.51.100.4'), '198.51.100.4');
    assert.equal(clientKey('::ffff:198.51.100.4'), '198.51.100.4');
    assert.equal(clientKey('2001:db8:1:2::1'), clientKey('2001:0db8:0001:0002:ffff:eeee:dddd:cccc'));
    assert.notEqual(clientKey('2001:db8:1:2::1'), clientKey('2001:db8:1:3::1'));
  });
});

eachDatabase(
  { title: 'rate limits', fleet: 'the counters are in Redis: requests spread over every instance count in one budget' },
  (ctx) => {
    let alice: Account;
    before(async () => {
      alice = await register(ctx.app, 'alice');
      ctx.clock.advance(MINUTE); // registering counted against the auth limit; start clean
    });

    test('the 51st GET /api/posts from one IP within a minute is 429 with the right headers; another IP is served', async () => {
      const first = await call(ctx.app, '/api/posts', { ip: '198.51.100.1' });
      assert.equal(first.headers['x-ratelimit-limit'], '50');
      assert.equal(first.headers['x-ratelimit-remaining'], '49');
      assert.equal(first.headers['x-ratelimit-reset'], '60');
      ctx.clock.advance(10_000);
      assert.deepEqual(new Set(await burst(ctx.app, 49, '/api/posts', { ip: '198.51.100.1' })), new Set([200]));
      const over = await call(ctx.app, '/api/posts', { ip: '198.51.100.1' });
      assert.equal(over.statusCode, 429);
      assert.equal(over.headers['retry-after'], '50');
      assert.equal(over.headers['x-ratelimit-remaining'], '0');
      assert.equal(over.headers['x-ratelimit-reset'], '50');
      assert.deepEqual(over.json(), { error: 'Rate limit exceeded: try again in 50 seconds', retryAfter: 50, status: 429 });
      assert.equal((await call(ctx.app, '/api/posts', { ip: '198.51.100.2' })).statusCode, 200, 'another IP is still served');
      assert.equal((await call(ctx.app, '/api/tags', { ip: '198.51.100.1' })).statusCode, 200, 'each endpoint has its own limit');
      ctx.clock.advance(50_000);
      assert.equal((await call(ctx.app, '/api/posts', { ip: '198.51.100.1' })).statusCode, 200, 'the window reset as time moved');
    });

    test('each endpoint has its number: status 30, unlisted 60, register 10 a minute per IP', async () => {
      ctx.clock.advance(MINUTE);
      for (const [url, n, method] of [
        ['/api/public/status', 30, 'GET'],
        ['/api', 60, 'GET'],
        ['/api/auth/register', 10, 'POST'],
      ] as const) {
        // Register with a too-short password: a cheap 400 that still counts against the auth limit.
        const o: Opts = { ip: '198.51.100.9', method, payload: method === 'POST' ? { username: 'nobody', password: 'short' } : undefined };
        const codes = await burst(ctx.app, n, url, o);
        assert.ok(
          codes.every((c) => c !== 429),
          `${url}: ${n} allowed`,
        );
        const last = await call(ctx.app, url, o);
        assert.equal(last.statusCode, 429, url);
        assert.equal(last.headers['x-ratelimit-limit'], String(n));
        ctx.clock.advance(MINUTE);
      }
    });

    test('session reads count per IP; session comment writes count per user, not per IP', async () => {
      ctx.clock.advance(MINUTE);
      const post = await ctx.database
        .insertInto('posts')
        .values({
          uploader_id: Number(alice.id),
          title: 't',
          description: '',
          content_rating: 'safe',
          media_type: 'image',
          mime: 'image/png',
          file_size: 1,
          width: 1,
          height: 1,
          duration: null,
          is_animated: 0,
          sha256: randomBytes(32).toString('hex'),
          phash: null,
          file_path: 'x',
          thumb_path: 'y',
          preview_path: null,
          like_count: 0,
          comment_count: 0,
          favorite_count: 0,
          created_at: ctx.clock.now(),
          updated_at: ctx.clock.now(),
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const comment = (ip: string, who: Account) =>
        call(ctx.app, '/api/comments', { ip, method: 'POST', headers: who.headers, payload: { postId: String(post.id), content: 'hi' } });
      for (let i = 0; i < 10; i++) assert.equal((await comment(`192.0.2.${i + 1}`, alice)).statusCode, 201);
      const eleventh = await comment('192.0.2.200', alice);
      assert.equal(eleventh.statusCode, 429, 'a new IP does not reset a user limit');
      const bob = await register(ctx.app, 'bob');
      assert.equal((await comment('192.0.2.1', bob)).statusCode, 201, 'another user on the same IP is served');

      assert.ok((await burst(ctx.app, 50, '/api/tags', { ip: '192.0.2.50', headers: alice.headers })).every((c) => c === 200));
      assert.equal((await call(ctx.app, '/api/tags', { ip: '192.0.2.50', headers: alice.headers })).statusCode, 429);
      assert.equal((await call(ctx.app, '/api/tags', { ip: '192.0.2.51', headers: alice.headers })).statusCode, 200, 'session reads are per IP');
    });

    testUnlessProcs('IPv6 clients are counted per /64', 'the proxy reaches the server processes over IPv4 loopback', async () => {
      ctx.clock.advance(MINUTE);
      assert.ok((await burst(ctx.app, 50, '/api/pools', { ip: '2001:db8:aa:1::1' })).every((c) => c === 200));
      assert.equal((await call(ctx.app, '/api/pools', { ip: '2001:db8:aa:1:ffff::2' })).statusCode, 429, 'same /64');
      assert.equal((await call(ctx.app, '/api/pools', { ip: '2001:db8:aa:2::1' })).statusCode, 200, 'another /64');
    });

    test('a basic-tier key gets 200 requests an hour over all endpoints, per user not per IP', async () => {
      ctx.clock.advance(MINUTE);
      const carol = await register(ctx.app, 'carol');
      await setAccount(ctx.database, 'carol', { tier: 'basic' });
      const { key } = await createKeyOk(ctx.app, carol.headers);
      const headers = { 'x-api-key': key };
      const urls = ['/api/posts', '/api/tags', '/api/pools', '/api/users/carol', '/api'];
      let ok = 0;
      for (let i = 0; i < 200; i++) {
        if (i % 40 === 39) ctx.clock.advance(MINUTE); // stay under the per-minute limits; the hour goes on
        const res = await call(ctx.app, urls[i % urls.length], { ip: `198.18.0.${i % 200}`, headers });
        if (res.statusCode === 200) ok++;
      }
      assert.equal(ok, 200);
      const over = await call(ctx.app, '/api/stats', { ip: '198.18.1.1', headers });
      assert.equal(over.statusCode, 429);
      assert.equal(over.headers['x-ratelimit-limit'], '200');
      const wait = Number(over.headers['retry-after']);
      assert.ok(wait > 3000 && wait <= 3600, `waits for the hour: ${wait}`);
      assert.equal((await call(ctx.app, '/api/stats', { ip: '198.18.1.1' })).statusCode, 200, 'the same IP without the key is still served');
    });

    test("a user's keys share one hourly budget", async () => {
      ctx.clock.advance(MINUTE);
      const dave = await register(ctx.app, 'dave');
      await setAccount(ctx.database, 'dave', { tier: 'pro' });
      const keys = [(await createKeyOk(ctx.app, dave.headers, 'one')).key, (await createKeyOk(ctx.app, dave.headers, 'two')).key];
      ctx.clock.advance(MINUTE);
      let ok = 0;
      for (let i = 0; i < 1000; i++) {
        if (i % 45 === 44) ctx.clock.advance(MINUTE);
        const res = await call(ctx.app, '/api/posts', { headers: { 'x-api-key': keys[i % 2] } });
        if (res.statusCode === 200) ok++;
      }
      assert.equal(ok, 1000);
      for (const key of keys) assert.equal((await call(ctx.app, '/api', { headers: { 'x-api-key': key } })).statusCode, 429);
    });
  },
  { rateLimits: true },
);

eachDatabase('rate limits in the OpenAPI document', (ctx) => {
  test('every API response documents the limit headers, and 429s Retry-After; the health checks, not limited, document none', async () => {
    const doc = (await ctx.app.inject({ url: '/api/openapi.json' })).json();
    type Op = { tags?: string[]; responses: Record<string, { headers?: object }> };
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, Op>>)) {
      for (const op of Object.values(ops)) {
        for (const [code, res] of Object.entries(op.responses)) {
          const names = Object.keys(res.headers ?? {});
          if (op.tags?.includes('operations')) {
            assert.deepEqual(names, [], `${path} ${code}`);
            continue;
          }
          for (const h of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']) assert.ok(names.includes(h), `${path} ${code} ${h}`);
          if (code === '429') assert.ok(names.includes('Retry-After'), `${path} 429 Retry-After`);
        }
      }
    }
    assert.match(doc.info.description, /200/, 'the tier budgets are described');
    assert.equal(doc.components.headers['X-RateLimit-Reset'].schema.type, 'integer');
  });
});

eachDatabase(
  'rate limits behind a proxy',
  (ctx) => {
    test('with TRUST_PROXY the client is the forwarded address', async () => {
      const o = (fwd: string): Opts => ({ ip: '127.0.0.1', headers: { 'x-forwarded-for': fwd } });
      assert.ok((await burst(ctx.app, 30, '/api/public/status', o('198.51.100.77'))).every((c) => c === 200));
      assert.equal((await call(ctx.app, '/api/public/status', o('198.51.100.77'))).statusCode, 429);
      assert.equal((await call(ctx.app, '/api/public/status', o('198.51.100.78'))).statusCode, 200);
    });
  },
  { rateLimits: true, trustProxy: '127.0.0.1' },
);

eachDatabase(
  'rate limits switched off',
  (ctx) => {
    test('RATE_LIMITS=off: no limit headers, no 429', async () => {
      const codes = await burst(ctx.app, 60, '/api/public/status');
      assert.ok(codes.every((c) => c === 200));
      assert.equal((await call(ctx.app, '/api/public/status')).headers['x-ratelimit-limit'], undefined);
    });
  },
  { rateLimits: false },
);

eachDatabase(
  'rate limits with Redis unreachable',
  (ctx) => {
    testUnlessProcs(
      'requests are still served, counted locally, and a warning is logged',
      'it reads the log of an app it builds in the test process',
      async () => {
        const logs = new PassThrough();
        let text = '';
        logs.on('data', (d) => (text += d));
        const app = await buildApp(
          { ...ctx.config, redisUrl: 'redis://127.0.0.1:1', logLevel: 'warn' },
          { database: ctx.database, clock: ctx.clock, logStream: logs },
        );
        try {
          assert.ok((await burst(app, 30, '/api/public/status')).every((c) => c === 200));
          assert.equal((await call(app, '/api/public/status')).statusCode, 429, 'still limited, by local counters');
          assert.match(text, /Redis unreachable/);
        } finally {
          await app.close();
        }
      },
    );
  },
  { rateLimits: true },
);

const REDIS_URL = process.env.REDIS_URL;
if (!REDIS_URL) test('rate limits shared through Redis', { skip: 'REDIS_URL is not set' }, () => {});
if (REDIS_URL) {
  eachDatabase(
    'rate limits shared through Redis',
    (ctx) => {
      testUnlessProcs(
        'two app instances on one Redis share one budget',
        "it builds two apps in the test process; in procs mode this file's other suites run on four processes sharing one Redis",
        async () => {
          const config = { ...ctx.config, redisUrl: REDIS_URL, redisPrefix: `test:${randomBytes(6).toString('hex')}:` };
          const a = await buildApp(config, { database: ctx.database, clock: ctx.clock });
          const b = await buildApp(config, { database: ctx.database, clock: ctx.clock });
          try {
            const codes: number[] = [];
            for (let i = 0; i < 30; i++) codes.push((await call(i % 2 ? a : b, '/api/public/status')).statusCode);
            assert.ok(codes.every((c) => c === 200));
            assert.equal((await call(a, '/api/public/status')).statusCode, 429);
            assert.equal((await call(b, '/api/public/status')).statusCode, 429);
            ctx.clock.advance(MINUTE);
            assert.equal((await call(b, '/api/public/status')).statusCode, 200, 'the shared window reset');
          } finally {
            await a.close();
            await b.close();
          }
        },
      );
    },
    { rateLimits: true },
  );
}
