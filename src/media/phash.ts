import type { Sharp } from 'sharp';
import { loadSharp } from './sharp.ts';
import { popcount } from '../core/typed-arrays.ts';

/**
 * DCT perceptual hash (the pHash construction): the image is flattened on white, turned to
 * greyscale and squeezed to 32x32; a 2-D DCT-II is taken, and the 8x8 block of lowest
 * frequencies after the first row and column (u, v = 1..8: no DC term, no pure-row or
 * pure-column average) gives 64 coefficients. Each bit is 1 where its coefficient is above the
 * block's median. Bits run row by row (u, then v), most significant first, as 16 hex digits.
 *
 * Near-identical pictures (resized, re-encoded, slightly recoloured) land within a few bits of
 * each other; unrelated ones differ in about half of the 64.
 */
export const HASH_SIZE = 32;
const BLOCK = 8;
const HEX16 = /^[0-9a-f]{16}$/i;

/** cos(pi (2x + 1) k / 2N) for k = 0..BLOCK and x = 0..N-1: the DCT-II basis rows we use. */
const BASIS: Float64Array[] = Array.from({ length: BLOCK + 1 }, (_, k) => {
  const row = new Float64Array(HASH_SIZE);
  for (let x = 0; x < HASH_SIZE; x++) row[x] = Math.cos((Math.PI * (2 * x + 1) * k) / (2 * HASH_SIZE));
  return row;
});

/** The hash of an image file, its bytes, or a sharp pipeline (as imageDerivatives hands it the thumbnail's pixels). */
export async function perceptualHash(input: Buffer | string | Sharp): Promise<string> {
  const img = typeof input === 'string' || Buffer.isBuffer(input) ? (await loadSharp())(input) : input;
  const { data, info } = await img
    .autoOrient()
    .flatten({ background: '#ffffff' })
    .greyscale()
    .resize(HASH_SIZE, HASH_SIZE, { fit: 'fill' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  if (info.channels !== 1 || data.length !== HASH_SIZE * HASH_SIZE) {
    throw new Error(`perceptualHash: expected ${HASH_SIZE}x${HASH_SIZE} grey pixels, got ${info.width}x${info.height}x${info.channels}`);
  }
  return hashFromGrey(data);
}

/**
 * Unnormalised 2-D DCT-II of a row-major 32x32 grey image, for frequencies 0..8 in each
 * direction: out[u * 9 + v] = sum over y, x of p[y][x] cos(pi(2y+1)u/64) cos(pi(2x+1)v/64).
 * (Normalisation would scale every coefficient we use by the same factor, so it is left out.)
 */
export function lowFrequencyDct(grey: ArrayLike<number>): Float64Array {
  if (grey.length !== HASH_SIZE * HASH_SIZE) throw new RangeError(`expected ${HASH_SIZE * HASH_SIZE} pixels`);
  const n = BLOCK + 1;
  const rows = new Float64Array(HASH_SIZE * n); // rows[y * n + v]: each image row against basis v
  for (let y = 0; y < HASH_SIZE; y++) {
    for (let v = 0; v < n; v++) {
      let sum = 0;
      for (let x = 0; x < HASH_SIZE; x++) sum += grey[y * HASH_SIZE + x] * BASIS[v][x];
      rows[y * n + v] = sum;
    }
  }
  const out = new Float64Array(n * n);
  for (let u = 0; u < n; u++) {
    for (let v = 0; v < n; v++) {
      let sum = 0;
      for (let y = 0; y < HASH_SIZE; y++) sum += BASIS[u][y] * rows[y * n + v];
      out[u * n + v] = sum;
    }
  }
  return out;
}

/** The 64-bit hash of a row-major 32x32 grey image, as 16 lowercase hex digits. */
export function hashFromGrey(grey: ArrayLike<number>): string {
  const dct = lowFrequencyDct(grey);
  const coefficients: number[] = [];
  for (let u = 1; u <= BLOCK; u++) {
    for (let v = 1; v <= BLOCK; v++) coefficients.push(dct[u * (BLOCK + 1) + v]);
  }
  const sorted = [...coefficients].sort((a, b) => a - b);
  const median = (sorted[31] + sorted[32]) / 2;
  let hex = '';
  for (let nibble = 0; nibble < 16; nibble++) {
    let value = 0;
    for (let bit = 0; bit < 4; bit++) value = (value << 1) | (coefficients[nibble * 4 + bit] > median ? 1 : 0);
    hex += value.toString(16);
  }
  return hex;
}

/** Number of differing bits between two 16-hex-digit hashes (0..64). */
export function hammingDistance(a: string, b: string): number {
  if (!HEX16.test(a) || !HEX16.test(b)) throw new TypeError('hammingDistance expects two 16-digit hex hashes');
  const high = parseInt(a.slice(0, 8), 16) ^ parseInt(b.slice(0, 8), 16);
  const low = parseInt(a.slice(8), 16) ^ parseInt(b.slice(8), 16);
  return popcount(high) + popcount(low);
}
