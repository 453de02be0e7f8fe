// The bucket goes away under a steady load and comes back (issue 62, point 2): media reads and
// uploads answer 503 naming the media store, everything else goes on, nothing answers 500 or
// hangs, uploads work again as soon as the bucket is back, every write answered 2xx is kept, and
// the bucket and the database agree afterwards.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { testConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { checkMedia } from '../src/modules/uploads/media-check.ts';
import { png } from './media-fixtures.ts';
import { multipart } from './multipart.ts';
import { assertNoHangNor500, assertWrittenKept, member, type Sent, startBoard, steadyLoad, tally, within } from './outage.ts';
import { startBucket } from './s3.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ok = (status: Sent['status']) => typeof status === 'number' && status >= 200 && status < 300;
const count = (sent: Sent[], phase: string, what: Sent['what'], is: (s: Sent['status']) => boolean) =>
  sent.filter((s) => s.phase === phase && s.what === what && is(s.status)).length;

test('a bucket outage: uploads and media answer 503 naming the media store, the rest goes on, all is back when the bucket is', {
  timeout: 240_000,
}, async (t) => {
  const bucket = await startBucket('outage');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ib-outage-bucket-'));
  let board: Awaited<ReturnType<typeof startBoard>> | null = null;
  let stopLoad: (() => Promise<unknown>) | null = null;
  try {
    board = await startBoard({ DATA_DIR: dataDir, ...bucket.env });
    const { call } = board;
    const users = [await member(call, 'ann'), await member(call, 'bob'), await member(call, 'cyd')];
    const load = steadyLoad(call, users);
    stopLoad = load.stop;
    const avatar = (who: { cookie: string }, seed: number) =>
      png(seed, 64, 64).then((data) =>
        call('PATCH', '/api/users/me', { cookie: who.cookie, form: multipart({}, [{ name: 'avatar', filename: 'me.png', data }]) }),
      );

    await sleep(2000);
    // Requests started before the switch end before the bucket goes: the outage counts only its own.
    load.phase('outage');
    await sleep(500);
    await bucket.server.stop();
    const outageStarted = Date.now();
    await within(3000, '/readyz names the media store', async () => {
      const ready = await call('GET', '/readyz');
      return ready.status === 503 && ready.json.failing.includes('media');
    });
    assert.equal((await call('GET', '/healthz')).status, 200, 'the process says it is alive');
    const refused = await avatar(users[0], 900);
    assert.equal(refused.status, 503, JSON.stringify(refused.json));
    assert.equal(refused.json.unavailable, 'media store');
    assert.equal(refused.headers.get('retry-after'), '5');
    assert.doesNotMatch((await call('GET', '/api/users/ann')).json.avatar, /^\/media\//, 'no avatar without its file: the default one still');
    await sleep(Math.max(0, 3500 - (Date.now() - outageStarted)));
    assert.equal(board.child.exitCode, null, 'the server is still running');

    load.phase('after');
    await bucket.server.start();
    let seed = 800; // below the load's own, so never a duplicate
    const recovered = await within(2000, 'an upload works again', async () => {
      const res = await call('POST', '/api/upload', {
        cookie: users[1].cookie,
        form: multipart({ tags: 'recovered' }, [{ filename: 'r.png', data: await png(seed++, 40, 30) }]),
      });
      if (res.status === 201) load.written.posts.add(res.json.post.id);
      return res.status === 201;
    });
    await within(2000, '/readyz is 200 again', async () => (await call('GET', '/readyz')).status === 200);
    const changed = await avatar(users[0], 901);
    assert.equal(changed.status, 200, JSON.stringify(changed.json));
    assert.equal((await call('GET', changed.json.avatar)).status, 200, 'the new avatar is served');
    await sleep(2000);
    const sent = await load.stop();

    const phases = ['before', 'outage', 'after'];
    for (const phase of phases) {
      const byWhat = (['read', 'upload', 'comment', 'like', 'media'] as const).map((w) => `${w} ${JSON.stringify(tally(sent, phase, w))}`);
      t.diagnostic(`${phase}: ${byWhat.join(', ')}`);
    }
    t.diagnostic(`uploads worked again ${recovered} ms after the bucket was back`);

    assertNoHangNor500(sent, 'media store');
    // (A read of a post may be a 404 at first: the load asks for post 1 before any upload.)
    assert.deepEqual(
      sent.filter((s) => s.phase === 'before' && !ok(s.status) && !(s.what === 'read' && s.status === 404)),
      [],
      'before the outage every answer is 2xx',
    );
    for (const what of ['upload', 'media'] as const) assert.ok(count(sent, 'outage', what, (s) => s === 503) > 0, `some ${what} answered 503 in the outage`);
    for (const what of ['read', 'comment', 'like'] as const) {
      assert.deepEqual(
        sent.filter((s) => s.phase === 'outage' && s.what === what && !ok(s.status)),
        [],
        `every ${what} answered 2xx in the outage: it needs no media`,
      );
      assert.ok(count(sent, 'outage', what, ok) > 0, `some ${what} was sent in the outage`);
    }
    for (const what of ['upload', 'media'] as const) assert.ok(count(sent, 'after', what, ok) > 0, `some ${what} answered 2xx after the outage`);

    await assertWrittenKept(call, load.written);
    await board.stop();
    assert.equal(board.child.exitCode, 0, board.out().stderr.slice(-2000));
    board = null;

    // The bucket and the database agree: no post without its files, and no object without its post
    // but the files of uploads answered 503 that could not be deleted then (the bucket was away),
    // which `imageboard media check --fix` finds and removes.
    assert.deepEqual(fs.readdirSync(path.join(dataDir, 'tmp')), [], 'no temporary file or journal left in DATA_DIR/tmp');
    const db = await openDatabase({ url: '', dataDir });
    try {
      const config = testConfig({ dataDir, mediaGraceMinutes: 0, mediaStore: 's3', s3: bucket.settings });
      const deps = { db, config, clock: { now: () => Date.now() }, media: bucket.store, startedAt: Date.now() };
      const report = await checkMedia(deps, true);
      assert.deepEqual(report.rowsWithoutFiles, [], 'every post has its original');
      assert.deepEqual(report.missingThumbnails, [], 'every post has its thumbnail and preview');
      const orphans = report.filesWithoutRows;
      const failedUploads = sent.filter((s) => s.what === 'upload' && s.status === 503).length;
      const orphanUploads = new Set(orphans.map((rel) => /([0-9a-f]{64})\.\w+$/.exec(rel)?.[1]));
      assert.ok(!orphanUploads.has(undefined), `only upload files are left over: ${orphans.join(', ')}`);
      assert.ok(orphanUploads.size <= failedUploads, `left over: files of ${orphanUploads.size} uploads, ${failedUploads} answered 503`);
      assert.deepEqual((await checkMedia(deps, false)).filesWithoutRows, [], 'media check --fix removed them');
      t.diagnostic(
        `${report.postsChecked} posts, ${report.filesChecked} objects; left over by uploads answered 503: ${orphans.length} (${orphans.join(', ')})`,
      );
    } finally {
      await db.close();
    }
  } finally {
    await stopLoad?.(); // after a failed assertion it would run on
    await board?.stop();
    await bucket.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
