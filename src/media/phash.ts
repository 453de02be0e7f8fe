import sharp from 'sharp';

/**
 * 64-bit DCT perceptual hash (pHash): greyscale 32x32, 2-D DCT, the 8x8 lowest frequencies without
 * the DC term compared with their median. Re-encoded or resized copies land a few bits apart.
 */
const N = 32;
const COS: Float64Array[] = Array.from({ length: 8 }, (_, u) => {
  const row = new Float64Array(N);
  for (let x = 0; x < N; x++) row[x] = Math.cos(((2 * x + 1) * u * Math.PI) / (2 * N));
  return row;
});

export async function perceptualHash(input: Buffer | string): Promise<string> {
  const pixels = await sharp(input, { limitInputPixels: 50_000_000, failOn: 'error' })
    .rotate()
    .greyscale()
    .resize(N, N, { fit: 'fill', kernel: 'lanczos3' })
    .raw()
    .toBuffer();
  // Separable DCT: rows first (only the 8 frequencies kept), then columns.
  const rows = new Float64Array(N * 8);
  for (let y = 0; y < N; y++) {
    for (let u = 0; u < 8; u++) {
      let sum = 0;
      for (let x = 0; x < N; x++) sum += pixels[y * N + x] * COS[u][x];
      rows[y * 8 + u] = sum;
    }
  }
  const coeffs: number[] = [];
  for (let v = 0; v < 8; v++) {
    for (let u = 0; u < 8; u++) {
      let sum = 0;
      for (let y = 0; y < N; y++) sum += rows[y * 8 + u] * COS[v][y];
      coeffs.push(sum);
    }
  }
  const ac = coeffs.slice(1);
  const median = [...ac].sort((a, b) => a - b)[Math.floor(ac.length / 2)];
  let bits = 0n;
  for (let i = 0; i < 64; i++) {
    // The DC term (i = 0) carries brightness only; it is compared like the rest but is nearly constant.
    if (coeffs[i] > median) bits |= 1n << BigInt(63 - i);
  }
  return bits.toString(16).padStart(16, '0');
}

export function hammingDistance(a: string, b: string): number {
  let x = BigInt(`0x${a}`) ^ BigInt(`0x${b}`);
  let n = 0;
  while (x) {
    n += Number(x & 1n);
    x >>= 1n;
  }
  return n;
}
