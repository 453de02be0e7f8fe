/**
 * Deterministic randomness for the seeder: the same seed and label always give the same stream,
 * on every machine. Math.random is never used, so a seed reproduces a database byte for byte.
 */

/** cyrb128: spreads a text seed over four 32-bit words (sfc32's state). */
function cyrb128(text: string): [number, number, number, number] {
  let h1 = 1779033703,
    h2 = 3144134277,
    h3 = 1013904242,
    h4 = 2773480762;
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  return [h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0];
}

/** sfc32 (Small Fast Chaotic, 128-bit state): fast, passes PractRand, trivially portable. */
export class Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  /** One independent stream per (seed, label): phases draw from their own stream. */
  constructor(seed: number | string, label = '') {
    [this.a, this.b, this.c, this.d] = cyrb128(`${seed}/${label}`);
    for (let i = 0; i < 12; i++) this.uint32();
  }

  uint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.uint32() / 4294967296;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** Uniform integer in [lo, hi], both inclusive. */
  between(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }

  /** Picks a value by relative weight. */
  weighted<T>(choices: readonly (readonly [T, number])[]): T {
    let total = 0;
    for (const [, w] of choices) total += w;
    let r = this.next() * total;
    for (const [value, w] of choices) {
      r -= w;
      if (r < 0) return value;
    }
    return choices[choices.length - 1][0];
  }

  /** Fisher-Yates, in place. */
  shuffle<T extends { length: number; [i: number]: any }>(items: T): T {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      const tmp = items[i];
      items[i] = items[j];
      items[j] = tmp;
    }
    return items;
  }

  bytes(n: number): Buffer {
    const out = Buffer.alloc(n);
    for (let i = 0; i < n; i++) out[i] = this.uint32() & 0xff;
    return out;
  }
}

/** 0..n-1 in a random order. */
export function permutation(n: number, rng: Random): Int32Array {
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) out[i] = i;
  return rng.shuffle(out);
}

/**
 * Zipf over ranks 0..n-1: P(rank k) is proportional to 1 / (k + 1)^exponent. Sampling inverts a
 * precomputed cumulative table (8 bytes a rank) with a binary search, so it is exact and O(log n).
 */
export class Zipf {
  private readonly cdf: Float64Array;

  constructor(
    readonly n: number,
    readonly exponent = 1,
  ) {
    if (!(n >= 1)) throw new RangeError('Zipf needs at least one rank');
    this.cdf = new Float64Array(n);
    let sum = 0;
    for (let k = 0; k < n; k++) {
      sum += 1 / (k + 1) ** exponent;
      this.cdf[k] = sum;
    }
    for (let k = 0; k < n; k++) this.cdf[k] /= sum;
  }

  /** Probability of one rank, for tests and planning. */
  probability(rank: number): number {
    return this.cdf[rank] - (rank === 0 ? 0 : this.cdf[rank - 1]);
  }

  sample(rng: Random): number {
    const u = rng.next();
    let lo = 0;
    let hi = this.n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.cdf[mid] > u) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}
