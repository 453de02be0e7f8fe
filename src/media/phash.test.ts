import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { HASH_SIZE, hammingDistance, hashFromGrey, lowFrequencyDct, perceptualHash } from './phash.ts';

/** Small deterministic generator so the fixtures are the same on every run. */
function lcg(seed: number) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

/** A scene of coloured shapes on a gradient, different for each seed. */
function scene(seed: number, width = 480, height = 360): Buffer {
  const r = lcg(seed);
  const colour = () => `rgb(${Math.floor(r() * 256)},${Math.floor(r() * 256)},${Math.floor(r() * 256)})`;
  let svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
    `<defs><linearGradient id="g" x2="1" y2="1"><stop offset="0" stop-color="${colour()}"/><stop offset="1" stop-color="${colour()}"/></linearGradient></defs>` +
    '<rect width="100%" height="100%" fill="url(#g)"/>';
  for (let i = 0; i < 7; i++) {
    const x = Math.floor(r() * width),
      y = Math.floor(r() * height),
      size = 30 + Math.floor((r() * width) / 3);
    svg +=
      r() < 0.5
        ? `<circle cx="${x}" cy="${y}" r="${size / 2}" fill="${colour()}"/>`
        : `<rect x="${x - size / 2}" y="${y - size / 3}" width="${size}" height="${size / 1.5}" fill="${colour()}"/>`;
  }
  return Buffer.from(`${svg}</svg>`);
}

const png = (seed: number) => sharp(scene(seed)).png().toBuffer();

describe('hammingDistance', () => {
  test('counts differing bits', () => {
    assert.equal(hammingDistance('0000000000000000', '0000000000000000'), 0);
    assert.equal(hammingDistance('ffffffffffffffff', '0000000000000000'), 64);
    assert.equal(hammingDistance('8000000000000001', '0000000000000000'), 2);
    assert.equal(hammingDistance('00000000f0000000', '0000000000000000'), 4);
    assert.equal(hammingDistance('ABCDEF0123456789', 'abcdef0123456789'), 0);
  });

  test('rejects anything but two 16-digit hex strings', () => {
    assert.throws(() => hammingDistance('123', '0000000000000000'), TypeError);
    assert.throws(() => hammingDistance('000000000000000g', '0000000000000000'), TypeError);
  });
});

describe('DCT hash of grey pixels', () => {
  const pixels = (seed: number) => {
    const r = lcg(seed);
    return Uint8Array.from({ length: HASH_SIZE * HASH_SIZE }, () => Math.floor(r() * 256));
  };

  test('lowFrequencyDct agrees with the DCT-II definition', () => {
    const p = pixels(1);
    const dct = lowFrequencyDct(p);
    const N = HASH_SIZE;
    for (const [u, v] of [
      [0, 0],
      [1, 0],
      [0, 3],
      [2, 5],
      [8, 8],
      [7, 1],
    ]) {
      let sum = 0;
      for (let y = 0; y < N; y++) {
        for (let x = 0; x < N; x++) {
          sum += p[y * N + x] * Math.cos((Math.PI * (2 * y + 1) * u) / (2 * N)) * Math.cos((Math.PI * (2 * x + 1) * v) / (2 * N));
        }
      }
      assert.ok(Math.abs(dct[u * 9 + v] - sum) < 1e-6, `coefficient (${u}, ${v})`);
    }
  });

  test('inverting the picture flips every bit (the DC term is left out)', () => {
    const p = pixels(2);
    const inverted = p.map((v) => 255 - v);
    assert.equal(hammingDistance(hashFromGrey(p), hashFromGrey(inverted)), 64);
  });

  test('a uniform brightness change does not move the hash', () => {
    const p = pixels(3).map((v) => Math.floor(v / 2));
    assert.equal(hashFromGrey(p), hashFromGrey(p.map((v) => v + 60)));
  });

  test('half the bits are set (the median splits the 64 coefficients)', () => {
    const bits = [...BigInt(`0x${hashFromGrey(pixels(4))}`).toString(2)].filter((b) => b === '1').length;
    assert.equal(bits, 32);
  });
});

describe('perceptualHash', () => {
  test('gives 16 hex digits, the same for a buffer and for a file path', async (t) => {
    const image = await png(10);
    const hash = await perceptualHash(image);
    assert.match(hash, /^[0-9a-f]{16}$/);
    const fs = await import('node:fs');
    const os = await import('node:os');
    const path = await import('node:path');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'phash-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'a.png');
    fs.writeFileSync(file, image);
    assert.equal(await perceptualHash(file), hash);
  });

  test('a resized, re-encoded JPEG stays within 8 bits of its original', async () => {
    for (const seed of [21, 22, 23, 24]) {
      const original = await png(seed);
      const jpeg = await sharp(original).resize(200).jpeg({ quality: 60 }).toBuffer();
      const bigger = await sharp(original).resize(1000).webp({ quality: 70 }).toBuffer();
      const blurred = await sharp(original).blur(1.5).jpeg({ quality: 80 }).toBuffer();
      const base = await perceptualHash(original);
      for (const variant of [jpeg, bigger, blurred]) {
        const d = hammingDistance(base, await perceptualHash(variant));
        assert.ok(d <= 8, `seed ${seed}: distance ${d}`);
      }
    }
  });

  test('unrelated pictures are far apart', async () => {
    const hashes = await Promise.all([31, 32, 33, 34, 35, 36].map(async (s) => perceptualHash(await png(s))));
    for (let i = 0; i < hashes.length; i++) {
      for (let j = i + 1; j < hashes.length; j++) {
        const d = hammingDistance(hashes[i], hashes[j]);
        assert.ok(d >= 16, `scenes ${i} and ${j}: distance ${d}`);
      }
    }
  });

  test('transparency is judged on white', async () => {
    const svg = (bg: string) =>
      Buffer.from(
        `<svg xmlns="http://www.w3.org/2000/svg" width="200" height="200">${bg}` +
          '<circle cx="70" cy="80" r="50" fill="#224488"/><rect x="110" y="100" width="70" height="80" fill="#aa3311"/></svg>',
      );
    const transparent = await sharp(svg('')).png().toBuffer();
    const onWhite = await sharp(svg('<rect width="100%" height="100%" fill="#fff"/>')).png().toBuffer();
    assert.ok((await sharp(transparent).metadata()).hasAlpha);
    assert.ok(hammingDistance(await perceptualHash(transparent), await perceptualHash(onWhite)) <= 2);
  });

  test('rejects bytes that are not an image', async () => {
    await assert.rejects(perceptualHash(Buffer.from('not an image at all')));
  });
});
