import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import sharp from 'sharp';
import { eachDatabase, storedMedia, tmpFiles, type Ctx } from '../../../test/helpers.ts';
import { testConfig } from '../../config.ts';
import { register, type Account } from '../../../test/auth-helpers.ts';
import { multipart } from '../../../test/multipart.ts';
import * as fx from '../../../test/media-fixtures.ts';

const LIMITS = testConfig().uploads;

async function upload(ctx: Ctx, who: Account | null, filename: string, data: Buffer, fields: Record<string, string> = {}) {
  const m = multipart(fields, [{ filename, data }]);
  return ctx.app.inject({ method: 'POST', url: '/api/upload', payload: m.payload, headers: { ...m.headers, ...(who?.headers ?? {}) } });
}

async function fetchMedia(ctx: Ctx, url: string) {
  const res = await ctx.app.inject({ method: 'GET', url });
  assert.equal(res.statusCode, 200, `${url}: ${res.statusCode}`);
  return res.rawPayload;
}

/** Every stored media file and every file in the upload temp folder(s). */
async function filesLeft(ctx: Ctx): Promise<string[]> {
  return [...(await storedMedia(ctx)).map((f) => `media/${f}`), ...tmpFiles(ctx).map((f) => `tmp/${f}`)];
}

async function postCount(ctx: Ctx): Promise<number> {
  return (await ctx.app.inject({ url: '/api/posts' })).json().totalPosts;
}

eachDatabase({ title: 'uploads', fleet: "an upload streams to one instance's DATA_DIR/tmp and the bucket; all list and serve it" }, (ctx) => {
  let alice: Account;
  before(async () => {
    alice = await register(ctx.app, 'alice');
  });

  test("a PNG is stored, thumbnailed and at once visible in the list and in its tags' counts", async () => {
    const res = await upload(ctx, alice, 'sunset.png', await fx.png(11), { title: 'Sunset', tags: ' Blue Sky , cat,cat', contentRating: 'sketchy' });
    assert.equal(res.statusCode, 201, res.body);
    const body = res.json();
    assert.equal(typeof body.message, 'string');
    assert.deepEqual(Object.keys(body.post).sort(), ['id', 'imageUrl', 'mediaType', 'thumbnailUrl', 'title']);
    assert.equal(body.post.title, 'Sunset');
    assert.equal(body.post.mediaType, 'image');
    assert.match(body.post.imageUrl, /^\/media\/originals\/[0-9a-f]{2}\/[0-9a-f]{2}\/[0-9a-f]{64}\.png$/);

    // Listed to its uploader (a member without filters); a visitor would see safe posts only.
    const list = (await ctx.app.inject({ url: '/api/posts', headers: alice.headers })).json();
    const item = list.posts.find((p: { id: string }) => p.id === body.post.id);
    assert.deepEqual(item.tags, ['blue_sky', 'cat']);
    assert.equal(item.contentRating, 'sketchy');
    assert.equal(item.thumbnail, body.post.thumbnailUrl);
    const tags = (await ctx.app.inject({ url: '/api/tags?search=blue_sky' })).json().tags;
    assert.equal(tags[0].name, 'blue_sky');
    assert.equal(tags[0].postsCount, 1);

    const thumb = await sharp(await fetchMedia(ctx, body.post.thumbnailUrl)).metadata();
    assert.equal(thumb.format, 'webp');
    assert.ok(Math.max(thumb.width!, thumb.height!) <= 300);
    const original = await fetchMedia(ctx, body.post.imageUrl);
    assert.equal((await sharp(original).metadata()).width, 320);
  });

  test('a phone JPEG: EXIF orientation applied to size and thumbnail, GPS and EXIF not served', async () => {
    const input = await fx.jpegWithExifAndGps();
    assert.ok((await sharp(input).metadata()).exif?.includes(Buffer.from('TestCam')), 'fixture carries EXIF');
    const res = await upload(ctx, alice, 'IMG_0001.jpg', input);
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().post.title, 'IMG_0001', 'title defaults to the file name');
    const detail = (await ctx.app.inject({ url: `/api/posts/${res.json().post.id}` })).json();
    assert.deepEqual([detail.width, detail.height], [200, 400], 'rotated by orientation 6');
    const thumb = await sharp(await fetchMedia(ctx, detail.thumbnail)).metadata();
    assert.ok(thumb.height! > thumb.width!, 'thumbnail is upright (portrait)');
    const served = await fetchMedia(ctx, detail.imageUrl);
    const meta = await sharp(served).metadata();
    assert.equal(meta.exif, undefined, 'no EXIF (so no GPS) in the served original');
    assert.equal(served.includes(Buffer.from('TestCam')), false);
    assert.deepEqual([meta.width, meta.height], [200, 400]);
    assert.equal(detail.fileSize, served.length);
  });

  test('an upright JPEG with GPS: served without its EXIF, its picture not re-encoded', async () => {
    const input = await sharp(await fx.png(31, 320, 240))
      .jpeg({ quality: 90 })
      .withExif({ IFD0: { Make: 'TestCam' }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 2400/100' } })
      .toBuffer();
    const res = await upload(ctx, alice, 'upright.jpg', input);
    assert.equal(res.statusCode, 201, res.body);
    const served = await fetchMedia(ctx, res.json().post.imageUrl);
    assert.equal((await sharp(served).metadata()).exif, undefined);
    assert.equal(served.includes(Buffer.from('TestCam')), false);
    const pixels = async (b: Buffer) => (await sharp(b).raw().toBuffer()).toString('base64');
    assert.equal(await pixels(served), await pixels(input), 'the same pixels: a re-encoded JPEG would differ');
  });

  test('animated GIF, WebP and AVIF are accepted; the GIF stays animated', async () => {
    const gif = await upload(ctx, alice, 'dance.gif', await fx.animatedGif(), { isNSFW: 'true' });
    assert.equal(gif.statusCode, 201, gif.body);
    const g = (await ctx.app.inject({ url: `/api/posts/${gif.json().post.id}` })).json();
    assert.equal(g.contentRating, 'unsafe', 'isNSFW true means unsafe');
    assert.equal(g.mime, 'image/gif');
    assert.equal((await sharp(await fetchMedia(ctx, g.imageUrl)).metadata()).pages, 3);
    for (const [name, data, mime] of [
      ['a.webp', await fx.webp(), 'image/webp'],
      ['a.avif', await fx.avif(), 'image/avif'],
    ] as const) {
      const res = await upload(ctx, alice, name, data);
      assert.equal(res.statusCode, 201, res.body);
      const d = (await ctx.app.inject({ url: `/api/posts/${res.json().post.id}` })).json();
      assert.equal(d.mime, mime);
      assert.equal((await sharp(await fetchMedia(ctx, d.thumbnail)).metadata()).format, 'webp');
    }
  });

  for (const kind of ['mp4', 'webm'] as const) {
    test(`a short ${kind} video: duration, size, codecs, poster thumbnail, no location metadata served`, async () => {
      const res = await upload(ctx, alice, `clip.${kind}`, fx.video(kind));
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(res.json().post.mediaType, 'video');
      const d = (await ctx.app.inject({ url: `/api/posts/${res.json().post.id}` })).json();
      assert.equal(d.mediaType, 'video');
      assert.deepEqual([d.width, d.height], [160, 120]);
      assert.ok(Math.abs(d.duration - 2) < 0.2, `duration ${d.duration}`);
      assert.equal(d.codecs, kind === 'mp4' ? 'h264,aac' : 'vp8,opus');
      const poster = await sharp(await fetchMedia(ctx, d.thumbnail)).metadata();
      assert.equal(poster.format, 'webp');
      const probe = (file: string) => execFileSync('ffprobe', ['-v', 'error', '-print_format', 'json', '-show_format', file]).toString();
      const format = await ctx.app.deps.media.withLocalFile(d.imageUrl.replace(/^\/media\//, ''), async (file) => probe(file));
      const tags = JSON.stringify(JSON.parse(format).format.tags ?? {});
      assert.doesNotMatch(tags, /48\.8584|secret place/);
    });
  }

  test('refused files get the right status and leave no file and no row behind', async () => {
    const before = await filesLeft(ctx);
    const count = await postCount(ctx);
    const cases: [string, Buffer, number, RegExp][] = [
      ['broken.jpg', await fx.truncatedJpeg(), 415, /damaged|truncated/],
      ['bomb.png', fx.pngBomb(), 413, /30000x30000/],
      ['notes.jpg', fx.textFile(), 415, /Unsupported file type/],
      ['empty.png', Buffer.alloc(0), 400, /empty/],
      ['drawing.svg', fx.svg(), 415, /Unsupported file type/],
    ];
    for (const [name, data, status, message] of cases) {
      const res = await upload(ctx, alice, name, data);
      assert.equal(res.statusCode, status, `${name}: ${res.body}`);
      assert.equal(res.json().status, status);
      assert.match(res.json().error, message);
    }
    assert.deepEqual(await filesLeft(ctx), before);
    assert.equal(await postCount(ctx), count);
  });

  test('the same bytes again are 409 with the existing postId', async () => {
    const data = await fx.png(21);
    const first = await upload(ctx, alice, 'one.png', data);
    assert.equal(first.statusCode, 201);
    const files = await filesLeft(ctx);
    const again = await upload(ctx, alice, 'two.png', data, { title: 'copy' });
    assert.equal(again.statusCode, 409);
    assert.equal(again.json().postId, first.json().post.id);
    assert.deepEqual(await filesLeft(ctx), files);
  });

  test('bad fields are 400 naming the field, and nothing is stored', async () => {
    const count = await postCount(ctx);
    const data = await fx.png(31);
    const cases: [Record<string, string>, string][] = [
      [{ isNSFW: 'true', contentRating: 'safe' }, 'contentRating'],
      [{ contentRating: 'explicit' }, 'contentRating'],
      [{ isNSFW: 'perhaps' }, 'isNSFW'],
      [{ tags: 'ok, -minus' }, 'tags'],
      [{ tags: 'x'.repeat(65) }, 'tags'],
      [{ title: 't'.repeat(201) }, 'title'],
      [{ rating: 'safe' }, 'rating'],
    ];
    for (const [fields, field] of cases) {
      const res = await upload(ctx, alice, 'x.png', data, fields);
      assert.equal(res.statusCode, 400, `${JSON.stringify(fields)}: ${res.body}`);
      assert.match(res.json().error, new RegExp(field));
    }
    const noFile = multipart({ title: 'nothing' });
    const res = await ctx.app.inject({ method: 'POST', url: '/api/upload', payload: noFile.payload, headers: { ...noFile.headers, ...alice.headers } });
    assert.equal(res.statusCode, 400);
    assert.match(res.json().error, /file/);
    assert.equal(await postCount(ctx), count);
  });

  test('without a session or key the upload is 401; JSON instead of multipart is 415', async () => {
    const res = await upload(ctx, null, 'x.png', await fx.png(41));
    assert.equal(res.statusCode, 401);
    const json = await ctx.app.inject({ method: 'POST', url: '/api/upload', payload: { file: 'x' }, headers: alice.headers });
    assert.equal(json.statusCode, 415);
  });
});

eachDatabase(
  'upload limits',
  (ctx) => {
    let bob: Account;
    before(async () => {
      bob = await register(ctx.app, 'bob');
    });

    test('an image over the byte limit and a video over the time limit are 413, and nothing is kept', async () => {
      const noisy = await sharp({ create: { width: 400, height: 400, channels: 3, background: '#888', noise: { type: 'gaussian', mean: 128, sigma: 60 } } })
        .png()
        .toBuffer();
      assert.ok(noisy.length > 100_000);
      const big = await upload(ctx, bob, 'noise.png', noisy);
      assert.equal(big.statusCode, 413, big.body);
      assert.match(big.json().error, /larger than/);
      const long = await upload(ctx, bob, 'clip.mp4', fx.video('mp4'));
      assert.equal(long.statusCode, 413, long.body);
      assert.match(long.json().error, /seconds/);
      assert.deepEqual(await filesLeft(ctx), []);
      assert.equal(await postCount(ctx), 0);
    });
  },
  { uploads: { ...LIMITS, maxImageBytes: 100_000, maxVideoSeconds: 1 } },
);

eachDatabase(
  'uploads without ffmpeg',
  (ctx) => {
    let bob: Account;
    before(async () => {
      bob = await register(ctx.app, 'bob');
    });

    test('without ffmpeg, images still work and a video gets an error saying ffmpeg is needed', async () => {
      const image = await upload(ctx, bob, 'ok.png', await fx.png(51));
      assert.equal(image.statusCode, 201, image.body);
      const video = await upload(ctx, bob, 'clip.webm', fx.video('webm'));
      assert.equal(video.statusCode, 415);
      assert.match(video.json().error, /ffmpeg/);
    });
  },
  { uploads: { ...LIMITS, ffmpegPath: '/nonexistent/ffmpeg', ffprobePath: '/nonexistent/ffprobe' } },
);
