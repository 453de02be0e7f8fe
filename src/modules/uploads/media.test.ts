import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { eachDatabase, testUnlessFleet } from '../../../test/helpers.ts';
import { register, type Account } from '../../../test/auth-helpers.ts';
import { multipart } from '../../../test/multipart.ts';
import * as fx from '../../../test/media-fixtures.ts';
import { checkMedia } from './media-check.ts';

eachDatabase('media files', (ctx) => {
  let carol: Account;
  const posts: { id: string; imageUrl: string; thumbnailUrl: string }[] = [];

  before(async () => {
    carol = await register(ctx.app, 'carol');
    for (const [seed, tags] of [
      [61, 'keep,shared'],
      [62, 'lost,shared'],
      [63, 'thumbless'],
    ] as const) {
      const m = multipart({ tags }, [{ filename: `p${seed}.png`, data: await fx.png(seed) }]);
      const res = await ctx.app.inject({ method: 'POST', url: '/api/upload', payload: m.payload, headers: { ...m.headers, ...carol.headers } });
      assert.equal(res.statusCode, 201, res.body);
      posts.push(res.json().post);
    }
  });

  test('media is served with its type, nosniff, an ETag, a long immutable lifetime and Range support', async () => {
    const full = await ctx.app.inject({ url: posts[0].imageUrl });
    assert.equal(full.statusCode, 200);
    assert.equal(full.headers['content-type'], 'image/png');
    assert.equal(full.headers['x-content-type-options'], 'nosniff');
    assert.match(String(full.headers['cache-control']), /max-age=31536000/);
    assert.match(String(full.headers['cache-control']), /immutable/);
    assert.ok(full.headers.etag);
    const again = await ctx.app.inject({ url: posts[0].imageUrl, headers: { 'if-none-match': String(full.headers.etag) } });
    assert.equal(again.statusCode, 304);
    const part = await ctx.app.inject({ url: posts[0].imageUrl, headers: { range: 'bytes=0-7' } });
    assert.equal(part.statusCode, 206);
    assert.equal(part.headers['content-range'], `bytes 0-7/${full.rawPayload.length}`);
    assert.deepEqual(part.rawPayload, full.rawPayload.subarray(0, 8));
    const thumb = await ctx.app.inject({ url: posts[0].thumbnailUrl });
    assert.equal(thumb.headers['content-type'], 'image/webp');
  });

  test('a missing media file is 404 JSON', async () => {
    const res = await ctx.app.inject({ url: `/media/originals/00/00/${'0'.repeat(64)}.png` });
    assert.equal(res.statusCode, 404);
    assert.equal(res.json().status, 404);
  });

  test('nothing outside the media folder can be reached', async () => {
    fs.writeFileSync(path.join(ctx.dataDir, 'secret.txt'), 'top secret');
    for (const url of [
      '/media/../secret.txt',
      '/media/%2e%2e/secret.txt',
      '/media/..%2fsecret.txt',
      '/media/%2e%2e%2fsecret.txt',
      '/media/originals/../../secret.txt',
      '/media//etc/passwd',
    ]) {
      const res = await ctx.app.inject({ url });
      assert.notEqual(res.statusCode, 200, url);
      assert.doesNotMatch(res.body, /top secret|root:/, url);
    }
  });

  testUnlessFleet(
    'media check finds rows without files, files without rows and missing thumbnails; --fix repairs them',
    'checks files of DATA_DIR/media (s3-media.test.ts checks a bucket)',
    async () => {
      const media = path.join(ctx.dataDir, 'media');
      fs.rmSync(path.join(media, posts[1].imageUrl.replace('/media/', ''))); // a row without its file
      fs.rmSync(path.join(media, posts[2].thumbnailUrl.replace('/media/', ''))); // a missing thumbnail
      const orphan = `originals/00/11/${'0011'.padEnd(64, 'a')}.png`;
      fs.mkdirSync(path.dirname(path.join(media, orphan)), { recursive: true });
      fs.writeFileSync(path.join(media, orphan), await fx.png(64)); // a file without a row
      fs.mkdirSync(path.join(ctx.dataDir, 'tmp'), { recursive: true });
      fs.writeFileSync(path.join(ctx.dataDir, 'tmp', 'crashed.upload'), 'partial'); // an interrupted upload
      // Both from before the grace period; the same files written just now are left alone.
      const twoHoursAgo = new Date(Date.now() - 2 * 3_600_000);
      for (const f of [path.join(media, orphan), path.join(ctx.dataDir, 'tmp', 'crashed.upload')]) fs.utimesSync(f, twoHoursAgo, twoHoursAgo);
      const recentOrphan = `originals/00/22/${'0022'.padEnd(64, 'b')}.png`;
      fs.mkdirSync(path.dirname(path.join(media, recentOrphan)), { recursive: true });
      fs.writeFileSync(path.join(media, recentOrphan), 'being written');
      fs.writeFileSync(path.join(ctx.dataDir, 'tmp', 'streaming.upload'), 'in progress');

      const found = await checkMedia(ctx.app.deps, false);
      assert.deepEqual(found.rowsWithoutFiles, [posts[1].id]);
      assert.deepEqual(found.missingThumbnails, [posts[2].id]);
      assert.deepEqual(found.filesWithoutRows.sort(), [orphan, 'tmp/crashed.upload'].sort());
      assert.equal(found.recentFilesSkipped, 2);
      assert.equal((await ctx.app.inject({ url: `/api/posts/${posts[1].id}` })).statusCode, 200, 'a check without --fix changes nothing');

      const fixed = await checkMedia(ctx.app.deps, true);
      assert.equal(fixed.rowsWithoutFiles.length + fixed.missingThumbnails.length, 2);
      assert.equal((await ctx.app.inject({ url: `/api/posts/${posts[1].id}` })).statusCode, 404, 'the post without its file is gone');
      assert.equal((await ctx.app.inject({ url: posts[2].thumbnailUrl })).statusCode, 200, 'the thumbnail is made again');
      assert.equal(fs.existsSync(path.join(media, orphan)), false);
      assert.equal(fs.existsSync(path.join(media, recentOrphan)), true, 'a file younger than the grace period is kept');
      assert.equal(fs.existsSync(path.join(ctx.dataDir, 'tmp', 'streaming.upload')), true, 'a temp file being written is kept');
      fs.rmSync(path.join(media, recentOrphan));
      fs.rmSync(path.join(ctx.dataDir, 'tmp', 'streaming.upload'));
      const tags = (await ctx.app.inject({ url: '/api/tags?sortBy=alphabetical' })).json().tags;
      assert.deepEqual(
        tags.map((t: { name: string; postsCount: number }) => [t.name, t.postsCount]),
        [
          ['keep', 1],
          ['shared', 1],
          ['thumbless', 1],
        ],
      );

      const clean = await checkMedia(ctx.app.deps, false);
      assert.equal(clean.rowsWithoutFiles.length + clean.filesWithoutRows.length + clean.missingThumbnails.length, 0);
    },
  );

  testUnlessFleet(
    'media check --fix while an upload is streaming leaves it alone, and the upload succeeds',
    'watches the temp folder of the one app the upload streams to',
    async () => {
      const m = multipart({ tags: 'live' }, [{ filename: 'live.png', data: await fx.png(65, 800, 600) }]);
      const body = new PassThrough();
      const pending = ctx.app.inject({ method: 'POST', url: '/api/upload', payload: body, headers: { ...m.headers, ...carol.headers } });
      const half = Math.floor(m.payload.length / 2);
      body.write(m.payload.subarray(0, half));
      const tmp = path.join(ctx.dataDir, 'tmp');
      const deadline = Date.now() + 10_000;
      while (!(fs.existsSync(tmp) && fs.readdirSync(tmp).length > 0)) {
        assert.ok(Date.now() < deadline, 'the upload started writing its temp file');
        await new Promise((r) => setTimeout(r, 10));
      }
      const report = await checkMedia(ctx.app.deps, true);
      assert.ok(report.recentFilesSkipped >= 1);
      assert.deepEqual(fs.readdirSync(tmp).length, 1, `the temp file of the upload in progress is still there: ${fs.readdirSync(tmp)}`);
      body.end(m.payload.subarray(half));
      const res = await pending;
      assert.equal(res.statusCode, 201, res.body);
    },
  );
});
