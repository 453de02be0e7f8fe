// Redis, where a board counts its rate limits, hangs (its process stopped) and then goes away,
// under a steady load against the real server process, and comes back on the same port: requests
// are still served meanwhile (never a 500 nor a hang), counted in the process, so a client over a
// limit still gets its 429; /readyz names redis until it is back; and it is found again without a
// restart, counting there again.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { Redis } from 'ioredis';
import { assertNoHangNor500, type BoardClient, member, type Sent, startBoard, steadyLoad, tally, within } from './outage.ts';
import { freePort, waitFor } from './server-process.ts';

const REDIS_SERVER = process.env.REDIS_SERVER_PATH ?? 'redis-server';
/** Requests a minute per IP (core/rate-limit/rules.ts): each phase counts a route of its own, its window new. */
const STATUS = { url: '/api/public/status', limit: 30 };
const TAGS = { url: '/api/tags', limit: 50 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function redisMissing(): string | null {
  const found = spawnSync(REDIS_SERVER, ['--version'], { stdio: 'ignore' }).status === 0;
  return found ? null : `no ${REDIS_SERVER} (apt-get install redis-server, or set REDIS_SERVER_PATH)`;
}

/** A redis-server of the test's own on `port`, keeping nothing on disk; resolves once it accepts connections. */
async function startRedis(port: number) {
  const child = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  await waitFor(() => out.includes('Ready to accept connections') || child.exitCode !== null, 10_000);
  assert.equal(child.exitCode, null, `redis-server started: ${out.slice(-500)}`);
  return {
    /** SIGSTOP: the process hangs, its connections stay open; SIGCONT: it goes on. */
    freeze: (frozen: boolean) => child.kill(frozen ? 'SIGSTOP' : 'SIGCONT'),
    async stop(): Promise<void> {
      child.kill('SIGCONT');
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The keys Redis on `port` holds under `prefix`, read by a connection of the test's own. */
async function keysIn(port: number, prefix: string): Promise<string[]> {
  const redis = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await redis.connect();
    return await redis.keys(`${prefix}*`);
  } finally {
    redis.disconnect();
  }
}

/** The limit of `url` is counted: `limit` requests in a row answered 200, then a 429; returns how long the burst took. */
async function assertLimited(call: BoardClient, url: string, limit: number, where: string): Promise<number> {
  const started = Date.now();
  const codes: number[] = [];
  for (let i = 0; i <= limit; i++) codes.push((await call('GET', url)).status);
  assert.deepEqual(codes, [...Array(limit).fill(200), 429], `${where}: ${limit} answered, then 429`);
  return Date.now() - started;
}

/** Whether the window of `url` is a key in Redis, after a request to it. */
async function countedInRedis(call: BoardClient, port: number, prefix: string, url: string): Promise<boolean> {
  await call('GET', url);
  return (await keysIn(port, prefix)).some((k) => k.includes(url));
}

const readiness = async (call: BoardClient) => {
  const res = await call('GET', '/readyz');
  return { status: res.status, failing: res.json?.failing as string[] };
};

test('Redis hanging, then away, then back: requests still served and limited, /readyz names redis, counting in Redis again without a restart', {
  timeout: 120_000,
  skip: redisMissing() ?? false,
}, async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ib-redis-'));
  const port = await freePort();
  const prefix = `outage-${randomBytes(4).toString('hex')}:`;
  let redis: Awaited<ReturnType<typeof startRedis>> | null = await startRedis(port);
  let board: Awaited<ReturnType<typeof startBoard>> | null = null;
  let load: ReturnType<typeof steadyLoad> | null = null;
  try {
    board = await startBoard({ DATA_DIR: dataDir, RATE_LIMITS: 'on', REDIS_URL: `redis://127.0.0.1:${port}`, REDIS_PREFIX: prefix });
    const call = board.call;
    const users = [];
    for (let i = 0; i < 3; i++) users.push(await member(call, `redis${i}`));
    load = steadyLoad(call, users);

    // Up: counted in Redis.
    assert.deepEqual(await readiness(call), { status: 200, failing: [] });
    await assertLimited(call, STATUS.url, STATUS.limit, 'Redis up');
    assert.ok(
      (await keysIn(port, prefix)).some((k) => k.includes(STATUS.url)),
      `the window is a key under ${prefix} in Redis`,
    );
    await sleep(1000);

    // Hanging: each request waits for Redis a moment at most, then is counted in this process.
    load.phase('hanging');
    redis.freeze(true);
    const hanging = await assertLimited(call, TAGS.url, TAGS.limit, 'Redis hanging');
    const named = await within(5000, '/readyz 503 naming redis', async () => {
      const r = await readiness(call);
      return r.status === 503 && r.failing.join() === 'redis';
    });
    await sleep(1000);
    load.phase('answering');
    redis.freeze(false);
    const answering = await within(5000, 'counted in Redis again', async () => countedInRedis(call, port, prefix, '/api/pools'));
    assert.deepEqual(await readiness(call), { status: 200, failing: [] });

    // Away: still served and limited, counted in this process; /readyz names redis.
    load.phase('away');
    await redis.stop();
    redis = null;
    const noticed = await within(5000, '/readyz 503 naming redis', async () => {
      const r = await readiness(call);
      return r.status === 503 && r.failing.join() === 'redis';
    });
    await assertLimited(call, STATUS.url, STATUS.limit, 'Redis away');
    await sleep(2000);

    // Back on the same port: found again, and counting is in Redis again.
    load.phase('back');
    redis = await startRedis(port);
    const back = await within(5000, '/readyz 200 again', async () => (await readiness(call)).status === 200);
    // The window this process counted while Redis was away is used up: a 200 is from Redis's, new since its restart.
    await within(5000, 'counted in the new Redis', async () => (await call('GET', STATUS.url)).status === 200);
    assert.ok(
      (await keysIn(port, prefix)).some((k) => k.includes(STATUS.url)),
      'the window is a key in Redis again',
    );
    await sleep(1000);

    const sent = await load.stop();
    for (const phase of ['before', 'hanging', 'answering', 'away', 'back'])
      t.diagnostic(
        `${phase}: ${['read', 'media', 'upload', 'comment', 'like'].map((w) => `${w} ${JSON.stringify(tally(sent, phase, w as Sent['what']))}`).join(', ')}`,
      );
    const log = board.out().stdout;
    t.diagnostic(
      `hanging: ${TAGS.limit + 1} requests in ${hanging} ms, /readyz named redis after ${named} ms; counted in Redis again ${answering} ms after it went on`,
    );
    t.diagnostic(`away: /readyz named redis ${noticed} ms after it stopped, and was 200 ${back} ms after it started again`);
    assertNoHangNor500(sent, []);
    for (const phase of ['hanging', 'away', 'back'])
      assert.ok(Object.keys(tally(sent, phase)).includes('200'), `requests answered 200 while Redis was ${phase}`);
    assert.match(log, /Redis unreachable; counting in this process/);
    assert.match(log, /Redis is back; counting there again/);
  } finally {
    await load?.stop();
    await board?.stop();
    await redis?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
