// A board whose media live in a bucket (MEDIA_STORE=s3), against s3rver on loopback.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { mediaCommand } from '../../cli/media.ts';
import { anotherInstance, commandEnv, eachDatabase, type Ctx } from '../../../test/helpers.ts';
import { register, type Account } from '../../../test/auth-helpers.ts';
import { multipart } from '../../../test/multipart.ts';
import * as fx from '../../../test/media-fixtures.ts';
import { inBucket, startBucket } from '../../../test/s3.ts';

const bucket = await startBucket();
after(() => bucket.close());

interface Uploaded {
  id: string;
  imageUrl: string;
  thumbnailUrl: string;
  data: Buffer;
}

async function upload(ctx: Ctx, who: Account, filename: string, data: Buffer): Promise<Uploaded> {
  const m = multipart({ tags: 'bucket' }, [{ filename, data }]);
  const res = await ctx.app.inject({ method: 'POST', url: '/api/upload', payload: m.payload, headers: { ...m.headers, ...who.headers } });
  assert.equal(res.statusCode, 201, res.body);
  return { ...res.json().post, data };
}

const keyOf = (url: string) => url.replace(/^\/media\//, '');

/** Every file under DATA_DIR, relative. */
function filesUnder(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => fs.statSync(path.join(dir, f)).isFile()).sort();
}

async function run(ctx: Ctx, args: string[]) {
  let out = '';
  let err = '';
  const env = { ...(await commandEnv(ctx)), ...bucket.env, MEDIA_GRACE_MINUTES: '0' };
  const code = await mediaCommand(args, { env, out: { write: (s: string) => (out += s) }, err: { write: (s: string) => (err += s) } });
  return { code, out, err };
}

eachDatabase(
  'media in a bucket',
  (ctx) => {
    let alice: Account;
    let image: Uploaded;
    let clip: Uploaded;

    before(async () => {
      await bucket.empty(); // the other engine's pass used it too
      alice = await register(ctx.app, 'alice');
      image = await upload(ctx, alice, 'photo.png', await fx.png(31));
      clip = await upload(ctx, alice, 'clip.mp4', fx.video('mp4'));
    });

    test('an image and a video go to the bucket (original, thumbnail, preview) and nothing but the database is written under DATA_DIR', async () => {
      const keys = await bucket.keys();
      for (const post of [image, clip]) {
        const sha = /([0-9a-f]{64})\.\w+$/.exec(post.imageUrl)![1];
        assert.deepEqual(
          keys.filter((k) => k.includes(sha)).map((k) => k.split('/')[0]),
          ['originals', 'previews', 'thumbs'],
        );
      }
      assert.deepEqual(
        filesUnder(ctx.dataDir).filter((f) => !/^imageboard\.db(-wal|-shm)?$/.test(f)),
        [],
      );
      assert.equal(fs.existsSync(path.join(ctx.dataDir, 'media')), false);
    });

    test('the server streams media from the bucket with their type, an ETag, a year of caching and Range requests', async () => {
      const full = await ctx.app.inject({ url: image.imageUrl });
      assert.equal(full.statusCode, 200);
      assert.equal(full.headers['content-type'], 'image/png');
      assert.equal(full.headers['x-content-type-options'], 'nosniff');
      assert.match(String(full.headers['cache-control']), /max-age=31536000/);
      assert.match(String(full.headers['cache-control']), /immutable/);
      assert.ok(full.headers.etag);
      // The stored PNG had no metadata to strip: the bytes uploaded.
      assert.deepEqual(full.rawPayload, image.data);
      const head = await ctx.app.inject({ method: 'HEAD', url: image.imageUrl });
      assert.equal(head.statusCode, 200);
      assert.equal(head.headers['content-length'], String(image.data.length));
      assert.equal(head.rawPayload.length, 0);
      const again = await ctx.app.inject({ url: image.imageUrl, headers: { 'if-none-match': String(full.headers.etag) } });
      assert.equal(again.statusCode, 304);
      assert.equal(again.rawPayload.length, 0);

      const video = await ctx.app.inject({ url: clip.imageUrl });
      assert.equal(video.statusCode, 200);
      assert.equal(video.headers['content-type'], 'video/mp4');
      assert.equal(video.headers['accept-ranges'], 'bytes');
      const part = await ctx.app.inject({ url: clip.imageUrl, headers: { range: 'bytes=100-199' } });
      assert.equal(part.statusCode, 206);
      assert.equal(part.headers['content-range'], `bytes 100-199/${video.rawPayload.length}`);
      assert.deepEqual(part.rawPayload, video.rawPayload.subarray(100, 200));
      const past = await ctx.app.inject({ url: clip.imageUrl, headers: { range: `bytes=${video.rawPayload.length + 10}-` } });
      assert.equal(past.statusCode, 416);

      const thumb = await ctx.app.inject({ url: clip.thumbnailUrl });
      assert.equal(thumb.statusCode, 200);
      assert.equal(thumb.headers['content-type'], 'image/webp');
      const missing = await ctx.app.inject({ url: `/media/originals/00/00/${'0'.repeat(64)}.png` });
      assert.equal(missing.statusCode, 404);
      assert.equal(missing.json().status, 404);
      for (const url of ['/media/../imageboard.db', '/media/%2e%2e/imageboard.db', '/media/originals/..%2f..%2fimageboard.db']) {
        const res = await ctx.app.inject({ url });
        assert.notEqual(res.statusCode, 200, url);
      }
    });

    test('with MEDIA_PUBLIC_URL the API gives URLs in the bucket, and they serve the same bytes', async () => {
      const app = await anotherInstance(ctx, { mediaPublicUrl: bucket.publicUrl });
      try {
        const post = (await app.inject({ url: `/api/posts/${image.id}` })).json();
        assert.equal(post.imageUrl, bucket.publicUrl + keyOf(image.imageUrl));
        assert.equal(post.thumbnail, bucket.publicUrl + keyOf(image.thumbnailUrl));
        assert.ok(post.previewUrl.startsWith(bucket.publicUrl));
        const listed = (await app.inject({ url: '/api/posts' })).json().posts;
        assert.deepEqual(
          listed.map((p: { imageUrl: string; thumbnail: string }) => [p.imageUrl.startsWith(bucket.publicUrl), p.thumbnail.startsWith(bucket.publicUrl)]),
          [
            [true, true],
            [true, true],
          ],
        );
        const danbooru = (await app.inject({ url: `/posts/${clip.id}.json` })).json();
        assert.equal(danbooru.file_url, bucket.publicUrl + keyOf(clip.imageUrl));
        const res = await fetch(post.imageUrl);
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('content-type'), 'image/png');
        assert.deepEqual(Buffer.from(await res.arrayBuffer()), image.data);
        const m = multipart({}, [{ filename: 'more.png', data: await fx.png(32) }]);
        const up = await app.inject({ method: 'POST', url: '/api/upload', payload: m.payload, headers: { ...m.headers, ...alice.headers } });
        assert.equal(up.statusCode, 201, up.body);
        assert.ok(up.json().post.imageUrl.startsWith(bucket.publicUrl));
        assert.equal((await app.inject({ method: 'DELETE', url: `/api/posts/${up.json().post.id}`, headers: alice.headers })).statusCode, 200);
      } finally {
        await app.close();
      }
    });

    test('an avatar goes to the bucket and is served from it; with MEDIA_PUBLIC_URL its URL is in the bucket', async () => {
      const m = multipart({}, [{ name: 'avatar', filename: 'me.png', data: await fx.png(36) }]);
      const res = await ctx.app.inject({ method: 'PATCH', url: '/api/users/me', payload: m.payload, headers: { ...m.headers, ...alice.headers } });
      assert.equal(res.statusCode, 200, res.body);
      const avatar: string = res.json().avatar;
      assert.ok(await bucket.store.exists(keyOf(avatar)), avatar);
      const file = await ctx.app.inject({ url: avatar });
      assert.equal(file.statusCode, 200);
      assert.equal(file.headers['content-type'], 'image/webp');
      const app = await anotherInstance(ctx, { mediaPublicUrl: bucket.publicUrl });
      try {
        assert.equal((await app.inject({ url: '/api/users/alice' })).json().avatar, bucket.publicUrl + keyOf(avatar));
      } finally {
        await app.close();
      }
    });

    test('deleting a post deletes its objects', async () => {
      const doomed = await upload(ctx, alice, 'doomed.png', await fx.png(33));
      const sha = /([0-9a-f]{64})\.\w+$/.exec(doomed.imageUrl)![1];
      assert.equal((await bucket.keys()).filter((k) => k.includes(sha)).length, 3);
      const res = await ctx.app.inject({ method: 'DELETE', url: `/api/posts/${doomed.id}`, headers: alice.headers });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(
        (await bucket.keys()).filter((k) => k.includes(sha)),
        [],
      );
      assert.equal((await ctx.app.inject({ url: doomed.imageUrl })).statusCode, 404);
    });

    test('imageboard media check finds a missing object, a missing thumbnail and an orphan in the bucket; --fix repairs them', async () => {
      const lost = await upload(ctx, alice, 'lost.png', await fx.png(34));
      await bucket.store.delete(keyOf(lost.imageUrl));
      await bucket.store.delete(keyOf(clip.thumbnailUrl));
      const orphan = `originals/00/11/${'0011'.padEnd(64, 'a')}.png`;
      await bucket.store.put(orphan, await fx.png(35));

      const found = await run(ctx, ['check']);
      assert.equal(found.code, 1, found.err);
      assert.match(found.out, new RegExp(`posts without their file: 1 \\(${lost.id}\\)`));
      assert.match(found.out, new RegExp(`posts missing a thumbnail: 1 \\(${clip.id}\\)`));
      assert.match(found.out, new RegExp(`files without a post: 1 \\(${orphan}\\)`));
      assert.equal((await ctx.app.inject({ url: `/api/posts/${lost.id}` })).statusCode, 200, 'a check without --fix changes nothing');

      const fixed = await run(ctx, ['check', '--fix']);
      assert.equal(fixed.code, 0, fixed.err);
      assert.equal((await ctx.app.inject({ url: `/api/posts/${lost.id}` })).statusCode, 404, 'the post without its file is gone');
      const thumb = await ctx.app.inject({ url: clip.thumbnailUrl });
      assert.equal(thumb.statusCode, 200, 'the video thumbnail is made again from a copy of the original');
      assert.equal(thumb.headers['content-type'], 'image/webp');
      assert.equal(await bucket.store.exists(orphan), false);
      assert.deepEqual(fs.readdirSync(path.join(ctx.dataDir, 'tmp')), [], 'the local copy made for ffmpeg is gone');

      const clean = await run(ctx, ['check']);
      assert.equal(clean.code, 0, clean.out);
      assert.match(clean.out, /all good/);
    });
  },
  inBucket(bucket),
);
