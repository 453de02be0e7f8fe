import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { sql } from 'kysely';
import { eachDatabase, getJson, storedMedia, tmpFiles, type Ctx } from '../../../test/helpers.ts';
import { assertBadField, assertError, register, type Account } from '../../../test/auth-helpers.ts';
import { multipart } from '../../../test/multipart.ts';
import * as fx from '../../../test/media-fixtures.ts';
import { hammingDistance } from '../../media/phash.ts';

const W = 480;
const H = 360;

/** A flat-coloured scene of a few shapes. */
function scene(): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}">
    <rect width="100%" height="100%" fill="#88aabb"/>
    <circle cx="${W * 0.7}" cy="${H * 0.3}" r="${H / 5}" fill="#ffdd33"/>
    <rect x="${W * 0.05}" y="${H * 0.55}" width="${W * 0.5}" height="${H * 0.35}" fill="#223344"/>
    <polygon points="${W * 0.1},${H * 0.1} ${W * 0.4},${H * 0.15} ${W * 0.2},${H * 0.45}" fill="#ee4422"/>
  </svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

/** Smooth random colour blobs: a 12x9 grid of seeded noise scaled up. Each seed is a different picture. */
function blobs(seed: number): Promise<Buffer> {
  let s = seed >>> 0;
  const raw = Buffer.alloc(12 * 9 * 3);
  for (let i = 0; i < raw.length; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    raw[i] = s >>> 24;
  }
  return sharp(raw, { raw: { width: 12, height: 9, channels: 3 } })
    .resize(W, H, { kernel: 'cubic' })
    .png()
    .toBuffer();
}

type Found = { id: string; title: string; distance: number; imageUrl: string };

async function postRows(ctx: Ctx): Promise<number> {
  const r = await ctx.database.selectFrom('posts').select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow();
  return Number(r.n);
}

eachDatabase(
  { title: 'similar images', fleet: "each instance keeps a perceptual-hash index that must take in others' uploads and deletes" },
  (ctx) => {
    let alice: Account;
    const ids: Record<string, string> = {};
    const phash: Record<string, string> = {};
    let original: Buffer;

    async function upload(name: string, data: Buffer) {
      const m = multipart({ title: name }, [{ filename: `${name}.png`, data }]);
      const res = await ctx.app.inject({ method: 'POST', url: '/api/upload', payload: m.payload, headers: { ...m.headers, ...alice.headers } });
      assert.equal(res.statusCode, 201, res.body);
      ids[name] = res.json().post.id;
      const row = await ctx.database.selectFrom('posts').select('phash').where('id', '=', Number(ids[name])).executeTakeFirstOrThrow();
      phash[name] = row.phash!;
    }

    async function search(data: Buffer, filename: string, query = '', headers: Record<string, string> = alice.headers) {
      const m = multipart({}, [{ filename, data }]);
      return ctx.app.inject({ method: 'POST', url: `/api/search/similar${query}`, payload: m.payload, headers: { ...m.headers, ...headers } });
    }

    /** Nearest first, each distance the Hamming distance between the searched hash and the post's stored hash. */
    function assertRanked(body: { hash: string; posts: Found[] }) {
      assert.match(body.hash, /^[0-9a-f]{16}$/);
      const names = Object.fromEntries(Object.entries(ids).map(([k, v]) => [v, k]));
      for (const p of body.posts) assert.equal(p.distance, hammingDistance(body.hash, phash[names[p.id]]), `distance of ${names[p.id]}`);
      const d = body.posts.map((p) => p.distance);
      assert.deepEqual(
        d,
        [...d].sort((a, b) => a - b),
        'nearest first',
      );
    }

    before(async () => {
      alice = await register(ctx.app, 'alice');
      original = await scene();
      await upload('scene', original);
      await upload('blobs1', await blobs(1));
      await upload('blobs2', await blobs(2));
      await upload('blobs3', await blobs(3));
      await upload('pattern', await fx.png(1, W, H));
      // The fixtures really are unlike the scene, or the ranking below would prove nothing.
      for (const k of ['blobs1', 'blobs2', 'blobs3', 'pattern']) assert.ok(hammingDistance(phash.scene, phash[k]) > 16, `${k} is unlike the scene`);
    });

    for (const [label, make, filename] of [
      ['a JPEG re-encode at quality 60', (b: Buffer) => sharp(b).jpeg({ quality: 60 }).toBuffer(), 'copy.jpg'],
      [
        'a half-size copy',
        (b: Buffer) =>
          sharp(b)
            .resize(W / 2, H / 2)
            .png()
            .toBuffer(),
        'small.png',
      ],
    ] as const) {
      test(`POST /api/search/similar: ${label} finds the original first; no post and no file is left`, async () => {
        const copy = await make(original);
        assert.notDeepEqual(copy, original);
        const postsBefore = await postRows(ctx);
        const mediaBefore = await storedMedia(ctx);

        const res = await search(copy, filename);
        assert.equal(res.statusCode, 200, res.body);
        const body = res.json() as { hash: string; posts: Found[] };
        assertRanked(body);
        assert.equal(body.posts[0]?.id, ids.scene, 'the original comes first');
        assert.ok(body.posts[0].distance <= 8, `distance ${body.posts[0].distance}`);
        assert.equal(body.posts[0].title, 'scene');
        assert.equal(body.posts[0].imageUrl, (await getJson(ctx.app, `/api/posts/${ids.scene}`)).body.imageUrl);
        assert.deepEqual(
          body.posts.map((p) => p.id),
          [ids.scene],
          'unrelated images are not within the default distance',
        );

        // Asked for everything, the unrelated ones rank after the original.
        const all = (await search(copy, filename, '?maxDistance=64&limit=100')).json() as { hash: string; posts: Found[] };
        assertRanked(all);
        assert.equal(all.posts.length, 5);
        assert.equal(all.posts[0].id, ids.scene);
        for (const p of all.posts.slice(1)) assert.ok(p.distance > all.posts[0].distance + 8, `${p.title} at ${p.distance}`);

        assert.equal(await postRows(ctx), postsBefore, 'no post created');
        assert.equal((await getJson(ctx.app, '/api/posts')).body.totalPosts, postsBefore);
        assert.deepEqual(tmpFiles(ctx), [], 'no file left in tmp');
        assert.deepEqual(await storedMedia(ctx), mediaBefore, 'nothing stored');
      });
    }

    test('GET /api/posts/<id>/similar ranks other posts by distance, leaves the post itself out', async () => {
      await upload(
        'scene_copy',
        await sharp(original)
          .resize(W / 2, H / 2)
          .jpeg({ quality: 70 })
          .toBuffer(),
      );
      const res = await getJson(ctx.app, `/api/posts/${ids.scene}/similar`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.hash, phash.scene);
      assertRanked(res.body);
      assert.deepEqual(
        res.body.posts.map((p: Found) => p.id),
        [ids.scene_copy],
      );
      assert.ok(res.body.posts[0].distance <= 8);

      const all = (await getJson(ctx.app, `/api/posts/${ids.scene}/similar?maxDistance=64&limit=100`)).body;
      assertRanked(all);
      assert.equal(all.posts[0].id, ids.scene_copy);
      assert.ok(!all.posts.some((p: Found) => p.id === ids.scene), 'not itself');
      assert.equal(all.posts.length, Object.keys(ids).length - 1);
      const two = (await getJson(ctx.app, `/api/posts/${ids.scene}/similar?maxDistance=64&limit=2`)).body.posts;
      assert.deepEqual(
        two.map((p: Found) => p.id),
        all.posts.slice(0, 2).map((p: Found) => p.id),
      );

      const fromBlobs = (await getJson(ctx.app, `/api/posts/${ids.blobs2}/similar`)).body;
      assert.ok(!fromBlobs.posts.some((p: Found) => p.id === ids.scene || p.id === ids.scene_copy), 'the scene is not like the blobs');
      assertError(await ctx.app.inject({ url: '/api/posts/999999/similar' }), 404);
      assertError(await ctx.app.inject({ url: `/api/posts/${ids.scene}/similar?maxDistance=65` }), 400);
    });

    test('a deleted post is no longer found, and does not use up the limit', async () => {
      await upload('scene_copy2', await sharp(original).jpeg({ quality: 50 }).toBuffer());
      const first = (await getJson(ctx.app, `/api/posts/${ids.scene}/similar?maxDistance=64&limit=1`)).body.posts;
      assert.equal(first.length, 1);
      const gone = first[0].id as string;
      assert.ok([ids.scene_copy, ids.scene_copy2].includes(gone));
      assert.equal((await ctx.app.inject({ method: 'DELETE', url: `/api/posts/${gone}`, headers: alice.headers })).statusCode, 200);

      const after = (await getJson(ctx.app, `/api/posts/${ids.scene}/similar?maxDistance=64&limit=1`)).body.posts;
      assert.equal(after.length, 1, 'the next nearest post fills the place');
      assert.notEqual(after[0].id, gone);
      assert.equal(after[0].id, gone === ids.scene_copy ? ids.scene_copy2 : ids.scene_copy);
      const byUpload = (await search(await sharp(original).jpeg({ quality: 60 }).toBuffer(), 'q.jpg', '?limit=100')).json().posts as Found[];
      assert.ok(!byUpload.some((p) => p.id === gone));
      assert.ok(byUpload.some((p) => p.id === ids.scene));
    });

    test('bad searches: no file or another field 400, not multipart 415, not an image 415, a broken image 4xx; tmp stays empty', async () => {
      const m = multipart({ note: 'a field that is not the file' }, [{ filename: 'a.png', data: original }]);
      assertError(await ctx.app.inject({ method: 'POST', url: '/api/search/similar', payload: m.payload, headers: { ...m.headers, ...alice.headers } }), 400);
      const noField = multipart({}, []);
      assertBadField(
        await ctx.app.inject({ method: 'POST', url: '/api/search/similar', payload: noField.payload, headers: { ...noField.headers, ...alice.headers } }),
        'file',
      );
      assertError(await ctx.app.inject({ method: 'POST', url: '/api/search/similar', payload: { file: 'x' }, headers: alice.headers }), 415);
      assertError(await search(fx.textFile(), 'notes.png'), 415);
      const broken = await search(await fx.truncatedJpeg(), 'broken.jpg');
      assert.ok(broken.statusCode >= 400 && broken.statusCode < 500, `${broken.statusCode} ${broken.body}`);
      assertError(await search(original, 'x.png', '?limit=0'), 400);
      assert.deepEqual(tmpFiles(ctx), []);
    });
  },
  { rateLimits: false },
);
