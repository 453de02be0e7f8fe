import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { crc32 } from 'node:zlib';
import sharp from 'sharp';
import { normalizeTagName } from '../modules/tags/tag-name-rules.ts';
import { DistinctUsers, planPools } from './activity.ts';
import { tagNames, username } from './names.ts';
import { DAY, planComments, planTagging, reactionCounts, spreadTimes } from './plan.ts';
import { textChunkSize, withTextChunk } from './png-text.ts';
import { Random, Zipf, permutation } from './random.ts';

describe('Random', () => {
  test('the same seed and label give the same stream; another seed or label a different one', () => {
    const draw = (seed: number, label: string) =>
      Array.from(
        { length: 8 },
        (
          (r) => () =>
            r.uint32()
        )(new Random(seed, label)),
      );
    assert.deepEqual(draw(1, 'a'), draw(1, 'a'));
    assert.notDeepEqual(draw(1, 'a'), draw(2, 'a'));
    assert.notDeepEqual(draw(1, 'a'), draw(1, 'b'));
  });

  test('int and between stay in range and reach both ends', () => {
    const rng = new Random(3);
    const seen = new Set<number>();
    for (let i = 0; i < 2000; i++) {
      const v = rng.between(-2, 2);
      assert.ok(Number.isInteger(v) && v >= -2 && v <= 2);
      seen.add(v);
    }
    assert.deepEqual(
      [...seen].sort((a, b) => a - b),
      [-2, -1, 0, 1, 2],
    );
  });

  test('permutation holds every index once', () => {
    const p = permutation(1000, new Random(5));
    assert.deepEqual(
      [...p].sort((a, b) => a - b),
      Array.from({ length: 1000 }, (_, i) => i),
    );
    assert.notDeepEqual(
      [...p],
      Array.from({ length: 1000 }, (_, i) => i),
    );
  });
});

describe('Zipf', () => {
  test('rank frequencies follow 1/k', () => {
    const n = 100;
    const zipf = new Zipf(n, 1);
    const rng = new Random(11);
    const hits = new Array(n).fill(0);
    const draws = 200_000;
    for (let i = 0; i < draws; i++) hits[zipf.sample(rng)]++;
    let harmonic = 0;
    for (let k = 1; k <= n; k++) harmonic += 1 / k;
    for (const k of [0, 1, 4, 49]) {
      const expected = draws / (k + 1) / harmonic;
      assert.ok(Math.abs(hits[k] - expected) < 5 * Math.sqrt(expected) + 1, `rank ${k}: ${hits[k]} vs ${expected.toFixed(0)}`);
    }
    assert.ok(Math.abs(zipf.probability(0) / zipf.probability(1) - 2) < 1e-9);
  });
});

describe('PNG text chunk', () => {
  const chunks = (png: Buffer) => {
    const out: { type: string; crcOk: boolean }[] = [];
    for (let at = 8; at < png.length; ) {
      const length = png.readUInt32BE(at);
      const typeAndData = png.subarray(at + 4, at + 8 + length);
      out.push({ type: typeAndData.toString('latin1', 0, 4), crcOk: crc32(typeAndData) === png.readUInt32BE(at + 8 + length) });
      at += 12 + length;
    }
    return out;
  };

  test('is inserted before IEND with a correct CRC, and the pixels do not change', async () => {
    const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#3366aa' } })
      .png()
      .toBuffer();
    const marked = withTextChunk(png, 'Comment', 'seed post 42');
    assert.equal(marked.length, png.length + textChunkSize('Comment', 'seed post 42'));
    const list = chunks(marked);
    assert.deepEqual(
      list.slice(-2).map((c) => c.type),
      ['tEXt', 'IEND'],
    );
    assert.ok(
      list.every((c) => c.crcOk),
      JSON.stringify(list),
    );
    assert.ok(marked.includes(Buffer.from('Comment\0seed post 42', 'latin1')));
    assert.deepEqual(await sharp(marked).raw().toBuffer(), await sharp(png).raw().toBuffer());
    assert.notDeepEqual(withTextChunk(png, 'Comment', 'seed post 43'), marked);
  });

  test('refuses what is not a PNG', () => {
    assert.throws(() => withTextChunk(Buffer.from('GIF89a, certainly not a png'), 'Comment', 'x'), /not a PNG/);
  });
});

describe('names', () => {
  test('tag names are distinct, valid tags, and as many as asked for', () => {
    const names = tagNames(30_000, new Random(1));
    assert.equal(names.length, 30_000);
    assert.equal(new Set(names).size, names.length);
    for (const name of names) assert.deepEqual(normalizeTagName(name), { ok: true, name });
    assert.ok(
      names.slice(0, 50).every((n) => !/_\d+$/.test(n)),
      'the most popular tags are plain words',
    );
  });

  test('usernames are distinct without regard to case and follow the username rules', () => {
    const taken = new Set<string>();
    const rng = new Random(2);
    const names = Array.from({ length: 5000 }, () => username(rng, taken));
    assert.equal(new Set(names.map((n) => n.toLowerCase())).size, 5000);
    for (const n of names) assert.match(n, /^[A-Za-z0-9_.-]{3,32}$/);
  });
});

describe('plan', () => {
  const until = Date.parse('2026-06-15T12:00:00Z');
  const start = until - 730 * DAY;

  test('spreadTimes is strictly increasing and inside the window', () => {
    const t = spreadTimes(5000, start, until, new Random(1), 0.75);
    for (let i = 1; i < t.length; i++) assert.ok(t[i] > t[i - 1]);
    assert.ok(t[0] >= start && t[t.length - 1] <= until);
    assert.ok(t.filter((x) => x > start + 365 * DAY).length > 2500, 'the second year is busier');
  });

  test('tagging: distinct tags a post, counts and first-use dates agree with the links', () => {
    const created = spreadTimes(2000, start, until, new Random(1));
    const tg = planTagging(created, 300, 12, start, new Random(2));
    const counted = new Int32Array(300);
    const first = new Float64Array(300).fill(Infinity);
    for (let i = 0; i < 2000; i++) {
      const ids = [...tg.tagIds.subarray(tg.offsets[i], tg.offsets[i + 1])];
      assert.equal(new Set(ids).size, ids.length);
      assert.deepEqual(
        ids,
        [...ids].sort((a, b) => a - b),
      );
      for (const id of ids) {
        counted[id - 1]++;
        first[id - 1] = Math.min(first[id - 1], created[i]);
      }
    }
    assert.deepEqual([...tg.postCount], [...counted]);
    for (let t = 0; t < 300; t++) if (counted[t] > 0) assert.equal(tg.createdAt[t], first[t]);
    for (let t = 1; t < 300; t++) assert.ok(tg.createdAt[t] >= tg.createdAt[t - 1], 'ids follow creation');
    assert.ok(Math.abs(tg.tagIds.length / 2000 - 12) < 0.5);
    const sorted = [...tg.postCount].sort((a, b) => b - a);
    assert.ok(sorted[0] > 5 * sorted[149], 'usage is heavily skewed');
  });

  test('reaction counts respect the cap and the total', () => {
    const rng = new Random(4);
    const counts = reactionCounts(100, 500, 10, () => 0, rng);
    assert.equal(
      counts.reduce((a, b) => a + b, 0),
      500,
    );
    assert.ok(counts.every((c) => c <= 10));
    assert.equal(counts[0], 10);
  });

  test('comments: replies share the parent post, come later, and are about 30%', () => {
    const posts = 3000;
    const postCreated = spreadTimes(posts, start, until, new Random(1));
    const userCreated = spreadTimes(50, start - 90 * DAY, until - 3_600_000, new Random(2));
    const rng = new Random(3);
    const per = reactionCounts(posts, posts, Number.MAX_SAFE_INTEGER, () => rng.int(posts), rng);
    const c = planComments(per, postCreated, userCreated, until, () => rng.int(50), rng);
    let replies = 0;
    for (let i = 0; i < c.post.length; i++) {
      if (i > 0) assert.ok(c.time[i] >= c.time[i - 1]);
      assert.ok(c.time[i] >= postCreated[c.post[i]] && c.time[i] >= userCreated[c.user[i]] && c.time[i] <= until);
      if (c.parent[i]) {
        replies++;
        assert.ok(c.parent[i] < i + 1);
        assert.equal(c.post[c.parent[i] - 1], c.post[i]);
      }
    }
    assert.ok(Math.abs(replies / c.post.length - 0.3) < 0.05, `reply share ${replies / c.post.length}`);
    assert.equal(
      c.replies.reduce((a, b) => a + b, 0),
      replies,
    );
  });

  test('pools take 5-30 distinct posts, in order, added after each post existed', () => {
    const postCreated = spreadTimes(2000, start, until, new Random(1));
    const userCreated = spreadTimes(40, start - 90 * DAY, until - 3_600_000, new Random(2));
    const rng = new Random(3);
    const pools = planPools(postCreated, userCreated, until, () => rng.int(40), rng);
    assert.equal(pools.length, 20);
    for (const p of pools) {
      assert.ok(p.posts.length >= 5 && p.posts.length <= 30);
      assert.equal(new Set(p.posts).size, p.posts.length);
      p.posts.forEach((post, j) => assert.ok(p.addedAt[j] >= postCreated[post] && p.addedAt[j] <= until));
      assert.ok(p.createdAt >= userCreated[p.creator]);
    }
  });

  test('distinct users: never the same user twice, whether few or nearly all are drawn', () => {
    const users = new DistinctUsers(40, new Random(9));
    for (const k of [0, 3, 10, 39, 40]) {
      const picked = users.pick(k);
      assert.equal(picked.length, k);
      assert.equal(new Set(picked).size, k);
      assert.ok(picked.every((u) => u >= 0 && u < 40));
    }
    assert.throws(() => users.pick(41));
  });
});
