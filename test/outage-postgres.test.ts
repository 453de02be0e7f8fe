// PostgreSQL stopped as a restart stops it (`pg_ctl stop -m fast`) under a steady load on two
// instances, and started again: no process ends, every request meanwhile is answered (503 naming
// the database where it needs it), both instances serve again within 5 s without a restart, and
// every write answered 2xx is kept. And an instance started before its database waits for it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { png } from './media-fixtures.ts';
import { multipart } from './multipart.ts';
import { assertNoHangNor500, assertWrittenKept, member, startBoard, steadyLoad, tally, within } from './outage.ts';
import { pgClusterMissing, startPgCluster } from './pg-cluster.ts';
import { startS3rver } from './s3.ts';

const missing = pgClusterMissing();
const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'ib-outage-pg-'));
const only2xx = (counts: Record<string, number>) => Object.keys(counts).every((status) => /^2\d\d$/.test(status));

test('PostgreSQL restarted under load: two instances answer 503 meanwhile, serve again within 5 s, and lose nothing answered 2xx', {
  skip: missing ?? false,
  timeout: 300_000,
}, async (t) => {
  const cluster = await startPgCluster();
  const s3 = await startS3rver();
  const dirs = [tempDir(), tempDir()];
  const boards: Awaited<ReturnType<typeof startBoard>>[] = [];
  try {
    await s3.createBucket('media');
    const env = {
      DATABASE_URL: cluster.url,
      MEDIA_STORE: 's3',
      S3_ENDPOINT: s3.settings.endpoint,
      S3_BUCKET: 'media',
      S3_REGION: s3.settings.region,
      S3_ACCESS_KEY_ID: s3.settings.accessKeyId,
      S3_SECRET_ACCESS_KEY: s3.settings.secretAccessKey,
    };
    // One instance of two processes, one of one, as a small fleet behind a load balancer.
    boards.push(await startBoard({ ...env, DATA_DIR: dirs[0], WORKERS: '2' }));
    boards.push(await startBoard({ ...env, DATA_DIR: dirs[1] }));
    const [a, b] = boards;
    const loads = [
      steadyLoad(a.call, [await member(a.call, 'pga1'), await member(a.call, 'pga2')], { seed: 6000 }),
      steadyLoad(b.call, [await member(b.call, 'pgb1'), await member(b.call, 'pgb2')], { seed: 7000 }),
    ];
    const phase = (name: string) => {
      for (const load of loads) load.phase(name);
    };
    await sleep(2000);

    phase('outage');
    await cluster.stop();
    for (const board of boards) {
      await within(5000, '/readyz names the database', async () => {
        const r = await board.call('GET', '/readyz');
        return r.status === 503 && r.json.failing.includes('database');
      });
      assert.equal((await board.call('GET', '/healthz')).status, 200);
    }
    await sleep(3000);
    for (const board of boards) assert.equal(board.child.exitCode, null, 'the instance is still running');

    phase('restart');
    await cluster.start();
    const took = [];
    for (const board of boards) {
      took.push(
        await within(5000, 'the instance serves again', async () => {
          const ready = await board.call('GET', '/readyz');
          const list = await board.call('GET', '/api/posts?limit=1');
          return ready.status === 200 && list.status === 200;
        }),
      );
    }
    phase('after');
    await sleep(2500);
    const sent = (await Promise.all(loads.map((l) => l.stop()))).flat();

    const counts = Object.fromEntries(['before', 'outage', 'restart', 'after'].map((p) => [p, tally(sent, p)]));
    t.diagnostic(`answers by phase: ${JSON.stringify(counts)}; serving again ${took.join(' and ')} ms after PostgreSQL was up`);
    assertNoHangNor500(sent, 'database');
    assert.ok(only2xx(counts.before), 'all answered before');
    assert.ok((counts.outage['503'] ?? 0) > 0, 'the outage was met');
    assert.ok((tally(sent, 'outage', 'media')['200'] ?? 0) > 0, 'media from the bucket still served while the database was away');
    assert.ok(only2xx(counts.after), 'all answered once serving again');
    assert.ok((tally(sent, 'after', 'upload')['201'] ?? 0) > 0, 'uploads work again');
    for (const board of boards) {
      assert.doesNotMatch(board.out().stdout, /exited \(/, 'no worker process ended');
      assert.doesNotMatch(board.out().stdout, /unhandled error/, 'no request failed as an unhandled error');
    }
    await assertWrittenKept(a.call, loads[0].written);
    await assertWrittenKept(b.call, loads[1].written);
    // The in-memory sets a search is answered from caught up after the outage: the newest post is
    // found by its tag, on both instances (whichever wrote it).
    const newest = String(Math.max(...loads.flatMap((l) => [...l.written.posts].map(Number))));
    const detail = (await a.call('GET', `/api/posts/${newest}`)).json;
    const tag = (detail.post ?? detail).tags[0];
    for (const board of boards) {
      const found = await board.call('GET', `/api/posts?q=${encodeURIComponent(tag)}&limit=5`);
      assert.equal(found.status, 200);
      assert.ok(
        found.json.posts.some((p: { id: string }) => p.id === newest),
        `post ${newest} found by its tag ${tag} on ${board.base}`,
      );
    }
  } finally {
    for (const board of boards) await board.stop();
    await s3.close();
    await cluster.destroy();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('an instance started before its database waits for it, /readyz 503 meanwhile, and serves once it is up', {
  skip: missing ?? false,
  timeout: 120_000,
}, async () => {
  const cluster = await startPgCluster();
  const dir = tempDir();
  let board: Awaited<ReturnType<typeof startBoard>> | null = null;
  try {
    await cluster.stop();
    board = await startBoard({ DATABASE_URL: cluster.url, DATA_DIR: dir });
    const ready = await board.call('GET', '/readyz');
    assert.equal(ready.status, 503);
    assert.deepEqual(ready.json.failing, ['database']);
    assert.equal((await board.call('GET', '/healthz')).status, 200);
    const list = await board.call('GET', '/api/posts');
    assert.equal(list.status, 503);
    assert.equal(list.json.unavailable, 'database');
    assert.equal(list.headers.get('retry-after'), '5');
    await sleep(2000);
    assert.equal(board.child.exitCode, null, 'still waiting, not ended');
    assert.match(board.out().stdout, /database: not reachable; waiting for it/);

    await cluster.start();
    const call = board.call;
    await within(10_000, 'serving once the database is up', async () => (await call('GET', '/readyz')).status === 200);
    const alice = await member(call, 'early');
    const upload = await call('POST', '/api/upload', {
      cookie: alice.cookie,
      form: multipart({ tags: 'early' }, [{ filename: 'x.png', data: await png(31) }]),
    });
    assert.equal(upload.status, 201, JSON.stringify(upload.json));
    assert.equal((await call('GET', `/api/posts/${upload.json.post.id}`)).status, 200);
  } finally {
    await board?.stop();
    await cluster.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
