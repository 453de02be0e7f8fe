// `imageboard media migrate --to s3`: a local board's media into a bucket (s3rver on loopback).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { buildApp } from '../../app.ts';
import { mediaCommand } from '../../cli/media.ts';
import { contentPath } from '../../core/media-paths.ts';
import { LocalMediaStore } from '../../storage/local.ts';
import { S3MediaStore } from '../../storage/s3.ts';
import { commandEnv, eachDatabase, testUnlessFleet } from '../../../test/helpers.ts';
import { register } from '../../../test/auth-helpers.ts';
import { multipart } from '../../../test/multipart.ts';
import * as fx from '../../../test/media-fixtures.ts';
import { inBucket, startBucket } from '../../../test/s3.ts';
import { migrateMedia } from './media-migrate.ts';

const bucket = await startBucket();
after(() => bucket.close());

async function bytesOf(stream: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c);
  return Buffer.concat(chunks);
}

describe('media migrate: resuming and checking', () => {
  let dir: string;
  let local: LocalMediaStore;
  const files = new Map<string, Buffer>();

  before(async () => {
    await bucket.empty();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ib-migrate-'));
    local = new LocalMediaStore(path.join(dir, 'media'), path.join(dir, 'tmp'));
    for (let i = 0; i < 7; i++) {
      const data = await fx.png(40 + i);
      const rel = contentPath(i % 2 ? 'thumbs' : 'originals', `${i}`.repeat(64), 'png');
      files.set(rel, data);
      await local.put(rel, data);
    }
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('a run stopped after 3 files is resumed: the next run copies the other 4 and leaves the 3 alone', async () => {
    const stop = new AbortController();
    const first = await migrateMedia(local, bucket.store, {
      concurrency: 1,
      signal: stop.signal,
      onProgress: (done) => done === 3 && stop.abort(),
    });
    assert.deepEqual([first.stopped, first.total, first.copied], [true, 7, 3]);
    assert.equal((await bucket.keys()).length, 3);

    const seen: number[] = [];
    const second = await migrateMedia(local, bucket.store, { onProgress: (done) => seen.push(done) });
    assert.deepEqual([second.stopped, second.copied, second.alreadyThere, second.replaced, second.failed], [false, 4, 3, [], []]);
    assert.deepEqual(seen, [1, 2, 3, 4, 5, 6, 7]);
    assert.deepEqual(await bucket.keys(), [...files.keys()].sort());
    for (const [rel, data] of files) assert.deepEqual(await bytesOf(await bucket.store.read(rel)), data, rel);
  });

  test('an object with other bytes of the same size is found by its sha256 and copied again; a deleted one is copied again', async () => {
    const [damaged, gone] = [...files.keys()].sort();
    const bad = Buffer.from(files.get(damaged)!);
    bad[bad.length - 1] ^= 0xff;
    await bucket.store.put(damaged, bad);
    await bucket.store.delete(gone);
    const r = await migrateMedia(local, bucket.store);
    assert.deepEqual([r.copied, r.alreadyThere, r.replaced, r.failed], [2, 5, [damaged], []]);
    assert.deepEqual(await bytesOf(await bucket.store.read(damaged)), files.get(damaged));
    assert.ok(await bucket.store.exists(gone));
  });

  test('a copy that reads back with other bytes is reported as failed, not counted as copied', async () => {
    const [bent] = [...files.keys()].sort();
    await bucket.store.delete(bent);
    // A store that stores one file and then gives back other bytes for it (a faulty proxy or disk).
    class Faulty extends S3MediaStore {
      override async read(rel: string) {
        return rel === bent ? Readable.from([Buffer.from('not the file')]) : super.read(rel);
      }
    }
    const faulty = new Faulty(bucket.settings, path.join(dir, 'tmp'));
    try {
      const r = await migrateMedia(local, faulty);
      assert.deepEqual([r.copied, r.alreadyThere, r.failed], [0, 6, [bent]]);
    } finally {
      await faulty.close();
    }
  });
});

// A fleet's media are in a bucket already: there is no DATA_DIR/media to move.
const MIGRATES_LOCAL = 'moves media from DATA_DIR/media of one board to a bucket';

eachDatabase('media migrate --to s3 of a board', (ctx) => {
  const posts: { id: string; imageUrl: string }[] = [];

  before(async () => {
    await bucket.empty();
    const bob = await register(ctx.app, 'bob');
    for (const [name, data] of [
      ['a.png', await fx.png(51)],
      ['b.jpg', await fx.jpegWithExifAndGps(52)],
      ['c.webm', fx.video('webm')],
    ] as const) {
      const m = multipart({}, [{ filename: name, data }]);
      const res = await ctx.app.inject({ method: 'POST', url: '/api/upload', payload: m.payload, headers: { ...m.headers, ...bob.headers } });
      assert.equal(res.statusCode, 201, res.body);
      posts.push(res.json().post);
    }
  });

  testUnlessFleet('copies every file with progress, says so, and a board on the bucket then serves every post', MIGRATES_LOCAL, async () => {
    let out = '';
    let err = '';
    const env = { ...(await commandEnv(ctx)), ...bucket.env, MEDIA_STORE: 'local' };
    const code = await mediaCommand(['migrate', '--to', 's3'], { env, out: { write: (s: string) => (out += s) }, err: { write: (s: string) => (err += s) } });
    assert.equal(code, 0, err + out);
    assert.match(err, /migrate: files +9\/9 \(100%\)/);
    assert.match(out, /files: 9, copied: 9, already there: 0\n/);
    assert.match(out, /set MEDIA_STORE=s3/);
    const local = new LocalMediaStore(path.join(ctx.dataDir, 'media'));
    const rels: string[] = [];
    for await (const f of local.list()) rels.push(f.rel);
    assert.deepEqual(await bucket.keys(), rels.sort());

    const onBucket = await buildApp({ ...ctx.config, ...inBucket(bucket) }, { database: ctx.database, clock: ctx.clock, jobs: { run: false } });
    try {
      for (const p of posts) {
        const here = await ctx.app.inject({ url: p.imageUrl });
        const there = await onBucket.inject({ url: p.imageUrl });
        assert.equal(there.statusCode, 200, p.imageUrl);
        assert.deepEqual(there.rawPayload, here.rawPayload, p.imageUrl);
        assert.equal(there.headers['content-type'], here.headers['content-type']);
      }
    } finally {
      await onBucket.close();
    }

    let second = '';
    const again = await mediaCommand(['migrate', '--to', 's3'], { env, out: { write: (s: string) => (second += s) }, err: { write: () => {} } });
    assert.equal(again, 0);
    assert.match(second, /files: 9, copied: 0, already there: 9\n/);
  });

  testUnlessFleet('without a bucket it says which setting to set', MIGRATES_LOCAL, async () => {
    let err = '';
    const code = await mediaCommand(['migrate', '--to', 's3'], {
      env: await commandEnv(ctx),
      out: { write: () => {} },
      err: { write: (s: string) => (err += s) },
    });
    assert.equal(code, 2);
    assert.match(err, /S3_BUCKET/);
  });
});
