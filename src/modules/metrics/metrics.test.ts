import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { eachDatabase, listeningPort, storedMedia, testUnlessProcs, type Ctx } from '../../../test/helpers.ts';
import { register } from '../../../test/auth-helpers.ts';
import { createPool, createPost, createUser } from '../../../test/factories.ts';
import { multipart } from '../../../test/multipart.ts';
import * as fx from '../../../test/media-fixtures.ts';
import { procsMode } from '../../../test/fleet.ts';
import { injectOverHttp } from '../../../test/procs-http.ts';
import { openStream } from '../../../test/sse.ts';
import { type Family, parsePrometheus, samplesOf, sampleSum } from '../../../test/prometheus-text.ts';
import { ConfigError, loadConfig, type MetricsSettings } from '../../config.ts';
import { insertJob } from '../../jobs/jobs.repo.ts';
import type { JobKind } from '../../jobs/job-kind.ts';
import { registerJobKind } from '../../jobs/kinds.ts';
import { createJob } from '../../jobs/jobs.service.ts';
import type { MediaStore } from '../../storage/media-store.ts';
import { createMetrics } from './metrics.service.ts';
import { listenForMetrics } from './metrics-listener.ts';

const TOKEN = 'metrics-test-token-0123456789';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const ON: MetricsSettings = { enabled: true, token: TOKEN, port: 0, host: '127.0.0.1' };
const STRATEGIES = ['sets', 'columns', 'driven', 'sql'];
/** A kind of job that always fails: registered once for the file (each engine's pass builds its apps after). */
const FAILING: JobKind = {
  name: 'metrics-test-fails',
  total: async () => 1,
  step: async () => {
    throw new Error('this kind always fails');
  },
};
registerJobKind(FAILING);

async function until<T>(what: string, check: () => Promise<T | undefined | false>, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`waited ${ms} ms for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * One scrape of every instance, parsed: the app; in fleet mode each app; in procs mode each
 * server process through its own port (each covers its two threads). Prometheus scrapes each
 * instance so, and a fleet's total is their sum.
 */
async function scrapeAll(ctx: Ctx): Promise<Map<string, Family>[]> {
  const answers = ctx.procs
    ? await Promise.all(ctx.procs.configs.map((c) => injectOverHttp(c.port, { url: '/metrics', headers: AUTH })))
    : await Promise.all((ctx.fleet?.apps ?? [ctx.app]).map((app) => app.inject({ url: '/metrics', headers: AUTH })));
  return answers.map((res) => {
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    return parsePrometheus(res.body);
  });
}

/** How much `name` (with these labels, over every instance) moved while `run` ran. */
async function moved(ctx: Ctx, name: string, labels: Record<string, string>, run: () => Promise<unknown>): Promise<number> {
  const before = sampleSum(await scrapeAll(ctx), name, labels);
  await run();
  return sampleSum(await scrapeAll(ctx), name, labels) - before;
}

eachDatabase(
  {
    title: 'metrics',
    fleet:
      "each instance (in procs mode each process, whose two threads' numbers it adds up) answers /metrics for itself: the requests, uploads, searches and jobs of the fleet are counted once, on the instance that served them",
  },
  (ctx) => {
    const get = (url: string, headers: Record<string, string> = {}) => ctx.app.inject({ url, headers });

    test('GET /metrics answers only with the bearer token: 401 without it or with another, the text format with it', async () => {
      const wrong: Record<string, string>[] = [
        {},
        { authorization: 'Bearer not-the-token-at-all' },
        { authorization: TOKEN },
        { authorization: `Basic ${TOKEN}` },
      ];
      for (const headers of wrong) {
        const res = await get('/metrics', headers);
        assert.equal(res.statusCode, 401, JSON.stringify(headers));
        assert.equal(res.headers['www-authenticate'], 'Bearer realm="metrics"');
        assert.match(res.json().error, /METRICS_TOKEN/);
      }
      const [families] = await scrapeAll(ctx);
      for (const name of ['imageboard_http_requests_total', 'imageboard_job_failures_total', 'imageboard_uploads_total', 'imageboard_storage_errors_total']) {
        assert.equal(families.get(name)?.type, 'counter', name);
      }
      for (const name of ['imageboard_http_request_duration_seconds', 'imageboard_search_duration_seconds', 'imageboard_job_duration_seconds']) {
        assert.equal(families.get(name)?.type, 'histogram', name);
      }
      for (const name of [
        'imageboard_db_connections',
        'imageboard_jobs',
        'imageboard_event_streams_open',
        'imageboard_ready',
        'imageboard_search_sets_bytes',
      ]) {
        assert.equal(families.get(name)?.type, 'gauge', name);
      }
      assert.equal(families.get('process_cpu_seconds_total')?.type, 'counter', "Node's default metrics are there");
      assert.ok(families.get('nodejs_heap_size_used_bytes'));
    });

    test('requests are counted by route pattern and status, and timed by route', async () => {
      const counted = (route: string, status: string) => ({ method: 'GET', route, status });
      assert.equal(
        await moved(ctx, 'imageboard_http_requests_total', counted('/api/posts/:id', '404'), async () => {
          for (const id of [999_991, 999_992, 999_993]) assert.equal((await get(`/api/posts/${id}`)).statusCode, 404);
        }),
        3,
        'three ids, one route',
      );
      assert.equal(
        await moved(ctx, 'imageboard_http_requests_total', counted('unmatched', '404'), async () => {
          assert.equal((await get('/api/no-such-thing')).statusCode, 404);
        }),
        1,
        'a path no route has',
      );
      assert.equal(
        await moved(ctx, 'imageboard_http_request_duration_seconds_count', { method: 'GET', route: '/api/tags' }, async () => {
          for (let i = 0; i < 2; i++) assert.equal((await get('/api/tags')).statusCode, 200);
        }),
        2,
      );
      const scrapes = await scrapeAll(ctx);
      assert.ok(sampleSum(scrapes, 'imageboard_http_request_duration_seconds_sum', { route: '/api/tags' }) > 0);
      assert.equal(samplesOf(scrapes, 'imageboard_http_requests_total').filter((s) => /\d{6}/.test(s.labels.route)).length, 0, 'no URL with an id as a label');
    });

    test('an upload moves the uploads and the bytes stored by what it stored', async () => {
      const alice = await register(ctx.app, 'metrics_uploader');
      const before = await storedMedia(ctx);
      const bytes = await moved(ctx, 'imageboard_upload_bytes_total', { kind: 'image' }, async () => {
        const uploads = await moved(ctx, 'imageboard_uploads_total', { kind: 'image' }, async () => {
          const m = multipart({ tags: 'metrics_upload' }, [{ filename: 'a.png', data: await fx.png(41) }]);
          const res = await ctx.app.inject({
            method: 'POST',
            url: '/api/upload',
            payload: Readable.from([m.payload]),
            headers: { ...m.headers, ...alice.headers },
          });
          assert.equal(res.statusCode, 201, res.body);
        });
        assert.equal(uploads, 1);
      });
      const added = (await storedMedia(ctx)).filter((f) => !before.includes(f));
      assert.equal(added.length, 3, 'original, thumbnail, preview');
      const sizes = await Promise.all(added.map(async (rel) => (await ctx.app.deps.media.stat(rel))!.size));
      assert.equal(
        bytes,
        sizes.reduce((a, b) => a + b, 0),
      );
    });

    test('each page of the search is counted under the strategy that answered it, and timed', async () => {
      const owner = await createUser(ctx.database, { username: 'metrics_pools' });
      const post = await createPost(ctx.database, { uploaderId: owner, tags: ['metrics_search'], createdAt: ctx.clock.now() });
      const pool = await createPool(ctx.database, { creatorId: owner, name: 'metrics_pool', postIds: [post], at: ctx.clock.now() });
      const count = 'imageboard_search_duration_seconds_count';
      const before = await scrapeAll(ctx);
      for (const q of ['metrics_search', 'metrics_search -rating:unsafe', `ordpool:${pool}`]) {
        const res = await get(`/api/posts?q=${encodeURIComponent(q)}`);
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.json().totalPosts, 1, q);
      }
      const after = await scrapeAll(ctx);
      const delta = (labels: Record<string, string> = {}) => sampleSum(after, count, labels) - sampleSum(before, count, labels);
      assert.equal(delta(), 3, 'three pages');
      // A pool's order is its rows' positions, which only SQL reads (search/plan.ts).
      assert.ok(delta({ strategy: 'sql' }) >= 1, 'the pool page, by SQL');
      for (const s of samplesOf(after, count)) assert.ok(STRATEGIES.includes(s.labels.strategy), s.labels.strategy);
      assert.ok(sampleSum(after, 'imageboard_search_duration_seconds_sum') > sampleSum(before, 'imageboard_search_duration_seconds_sum'));
    });

    test('an open event stream is counted while it is open', async () => {
      const port = await listeningPort(ctx);
      const open = async () => sampleSum(await scrapeAll(ctx), 'imageboard_event_streams_open');
      assert.equal(await open(), 0);
      const stream = await openStream(port, '/api/events?q=metrics_stream');
      try {
        assert.equal(stream.status, 200);
        assert.equal(await until('the stream counted', async () => (await open()) === 1), true);
      } finally {
        stream.close();
      }
      assert.equal(await until('the stream let go', async () => (await open()) === 0 || undefined), true);
    });

    test("the job queue is the board's, on every instance; the database's connections and readiness are each one's", async () => {
      // A kind no runner knows (one a newer version added) waits in the queue.
      await insertJob(ctx.database, { kind: 'metrics-test-unknown', params: null, total: 1, createdBy: null }, ctx.clock.now());
      for (const families of await scrapeAll(ctx)) {
        assert.equal(sampleSum([families], 'imageboard_jobs', { kind: 'metrics-test-unknown', state: 'queued' }), 1);
        assert.equal(sampleSum([families], 'imageboard_ready'), 1);
        assert.equal(sampleSum([families], 'imageboard_readiness_check', { check: 'database' }), 1);
        assert.ok(sampleSum([families], 'imageboard_db_connections_max') >= 1);
        const states = samplesOf([families], 'imageboard_db_connections').map((s) => s.labels.state);
        assert.deepEqual(states.sort(), ['idle', 'in_use', 'waiting']);
      }
    });

    // Procs mode's servers run two threads each: a scrape of one process must hold what both served.
    if (procsMode())
      test('a scrape of one server process covers both of its threads', async () => {
        const port = ctx.procs!.configs[0].port;
        const scrape = async () => parsePrometheus((await injectOverHttp(port, { url: '/metrics', headers: AUTH })).body);
        const served = (families: Map<string, Family>) => sampleSum([families], 'imageboard_http_requests_total', { route: '/healthz', status: '200' });
        const before = served(await scrape());
        const threads = new Set<string>();
        let made = 0;
        for (; made < 60 && threads.size < 2; made++) threads.add(String((await injectOverHttp(port, { url: '/healthz' })).headers['x-served-by']));
        assert.equal(threads.size, 2, `both threads served: ${[...threads]}`);
        const after = await scrape();
        assert.equal(served(after) - before, made);
        assert.equal(sampleSum([after], 'imageboard_serving_threads_scraped'), 2);
        assert.deepEqual(
          samplesOf([after], 'nodejs_heap_size_used_bytes')
            .map((s) => s.labels.thread)
            .sort(),
          ['0', '1', 'main'],
        );
      });

    testUnlessProcs(
      'a job that fails is counted by kind, with its time',
      'its kind of job is defined in this test process, which the server processes do not know',
      async () => {
        const failures = async () => sampleSum(await scrapeAll(ctx), 'imageboard_job_failures_total', { kind: FAILING.name });
        assert.equal(await failures(), 0);
        await createJob(ctx.app.deps, FAILING, {}, null);
        await until('the failure counted', async () => (await failures()) === 1);
        assert.equal(sampleSum(await scrapeAll(ctx), 'imageboard_job_duration_seconds_count', { kind: FAILING.name }), 1);
      },
    );
  },
  { metrics: ON },
);

eachDatabase('metrics: off by default', (ctx) => {
  test('/metrics is 404 and nothing is recorded', async () => {
    assert.equal(ctx.config.metrics.enabled, false);
    assert.equal(ctx.app.metrics, null);
    assert.equal(ctx.app.deps.metrics, undefined);
    for (const headers of [{}, AUTH]) {
      const res = await ctx.app.inject({ url: '/metrics', headers });
      assert.equal(res.statusCode, 404);
      assert.equal(res.json().error, 'Not found: GET /metrics');
    }
  });
});

eachDatabase(
  'metrics: rate-limit refusals',
  (ctx) => {
    test('a request the rate limits refuse is counted by its route', async () => {
      // GET /api/tags: 50 a minute from one address (core/rate-limit/rules.ts).
      const statuses: number[] = [];
      for (let i = 0; i < 52; i++) statuses.push((await ctx.app.inject({ url: '/api/tags' })).statusCode);
      assert.deepEqual([statuses.filter((s) => s === 200).length, statuses.filter((s) => s === 429).length], [50, 2]);
      const families = await scrapeAll(ctx);
      assert.equal(sampleSum(families, 'imageboard_rate_limit_refusals_total', { route: '/api/tags' }), 2);
      assert.equal(sampleSum(families, 'imageboard_http_requests_total', { route: '/api/tags', status: '429' }), 2);
    });
  },
  { metrics: ON, rateLimits: true },
);

eachDatabase(
  'metrics: on a listener of their own',
  (ctx) => {
    test("with METRICS_PORT the board's port answers 404 at /metrics, token or not", async () => {
      for (const headers of [{}, AUTH]) assert.equal((await ctx.app.inject({ url: '/metrics', headers })).statusCode, 404);
      // Still counted, for the listener to give.
      assert.match(await ctx.app.metrics!.text(), /imageboard_http_requests_total\{method="GET",route="unmatched",status="404"\} 2/);
    });
  },
  { metrics: { ...ON, token: '', port: 9 } },
);

test('the listener of METRICS_PORT serves GET /metrics alone, behind the token when one is set', async () => {
  const metrics = createMetrics('disk');
  for (const token of ['', TOKEN]) {
    const listener = await listenForMetrics({ enabled: true, token, port: 0, host: '127.0.0.1' }, metrics.text, metrics.contentType, (err) => {
      throw err;
    });
    const at = (path: string, headers: Record<string, string> = {}) => fetch(`http://127.0.0.1:${listener.port}${path}`, { headers });
    try {
      const open = await at('/metrics');
      assert.equal(open.status, token ? 401 : 200);
      if (token) assert.equal(open.headers.get('www-authenticate'), 'Bearer realm="metrics"');
      const res = await at('/metrics', AUTH);
      assert.equal(res.status, 200);
      assert.ok(parsePrometheus(await res.text()).get('imageboard_http_requests_total'));
      for (const path of ['/', '/api/posts', '/metrics/x']) assert.equal((await at(path, AUTH)).status, 404, path);
      assert.equal((await fetch(`http://127.0.0.1:${listener.port}/metrics`, { method: 'POST', headers: AUTH })).status, 405);
    } finally {
      await listener.close();
    }
  }
});

test("the media store's failures are counted as storage errors, a missing file is not", async () => {
  const fail = (code: string) => Object.assign(new Error(code), { code });
  const store = {
    put: async () => {
      throw fail('EIO');
    },
    read: async () => {
      throw fail('ENOENT');
    },
    check: async () => {
      throw fail('ENOSPC');
    },
    withLocalFile: async <T>(_rel: string, work: (file: string) => Promise<T>) => work('/tmp/x'),
  } as unknown as MediaStore;
  const metrics = createMetrics('bucket');
  const counted = metrics.counted(store);
  const errors = async () => sampleSum([parsePrometheus(await metrics.text())], 'imageboard_storage_errors_total', { store: 'bucket' });
  assert.equal(await errors(), 0);
  await assert.rejects(counted.put('a', Buffer.from('x')), /EIO/);
  await assert.rejects(counted.read('a'), /ENOENT/);
  await assert.rejects(counted.check(), /ENOSPC/);
  await assert.rejects(
    counted.withLocalFile('a', async () => {
      throw new Error('the work failed, not the store');
    }),
  );
  assert.equal(await errors(), 2, 'the write and the check');
});

test('METRICS=on needs a token or a port of its own: otherwise the server refuses to start, naming the settings', () => {
  assert.deepEqual(loadConfig({}).metrics, { enabled: false, token: '', port: 0, host: '127.0.0.1' }, 'off by default');
  const refused = (env: Record<string, string>, setting: string, message: RegExp) =>
    assert.throws(
      () => loadConfig(env),
      (err: unknown) => err instanceof ConfigError && err.setting === setting && message.test(err.message),
    );
  refused({ METRICS: 'on' }, 'METRICS', /METRICS_TOKEN .* or METRICS_PORT/);
  refused({ METRICS: 'on', METRICS_TOKEN: 'short' }, 'METRICS_TOKEN', /at least 16 characters/);
  refused({ METRICS: 'on', METRICS_PORT: '3000' }, 'METRICS_PORT', /PORT/);
  assert.equal(loadConfig({ METRICS: 'on', METRICS_TOKEN: TOKEN }).metrics.token, TOKEN);
  assert.deepEqual(loadConfig({ METRICS: 'true', METRICS_PORT: '9100', METRICS_HOST: '10.0.0.5' }).metrics, {
    enabled: true,
    token: '',
    port: 9100,
    host: '10.0.0.5',
  });
});
