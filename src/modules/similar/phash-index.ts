import type { Kysely } from 'kysely';
import type { DB } from '../../db/types.ts';

const popcount32 = (x: number): number => {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
};

/**
 * Every post's 64-bit perceptual hash in two typed arrays, scanned linearly (a million hashes take
 * a few milliseconds). Posts get new ids only, so each query first appends the rows added since the
 * last one, by any instance; deleted posts are forgotten when their rows are found missing.
 */
export class PhashIndex {
  private ids = new Int32Array(1024);
  private hi = new Uint32Array(1024);
  private lo = new Uint32Array(1024);
  private size = 0;
  private maxId = 0;

  async refresh(db: Kysely<DB>): Promise<void> {
    for (;;) {
      const rows = await db.selectFrom('posts').select(['id', 'phash']).where('id', '>', this.maxId).orderBy('id').limit(20_000).execute();
      if (rows.length === 0) return;
      for (const r of rows) if (r.phash) this.push(r.id, r.phash);
      this.maxId = rows[rows.length - 1].id;
    }
  }

  private push(id: number, hex: string): void {
    if (this.size === this.ids.length) {
      const grow = <T extends Int32Array | Uint32Array>(a: T): T => {
        const b = new (a.constructor as new (n: number) => T)(a.length * 2);
        b.set(a);
        return b;
      };
      this.ids = grow(this.ids);
      this.hi = grow(this.hi);
      this.lo = grow(this.lo);
    }
    this.ids[this.size] = id;
    this.hi[this.size] = parseInt(hex.slice(0, 8), 16) >>> 0;
    this.lo[this.size] = parseInt(hex.slice(8, 16), 16) >>> 0;
    this.size++;
  }

  /** Drops deleted posts (found missing when their rows were fetched). */
  forget(ids: number[]): void {
    const gone = new Set(ids);
    let kept = 0;
    for (let i = 0; i < this.size; i++) {
      if (gone.has(this.ids[i])) continue;
      this.ids[kept] = this.ids[i];
      this.hi[kept] = this.hi[i];
      this.lo[kept] = this.lo[i];
      kept++;
    }
    this.size = kept;
  }

  /** Posts within maxDistance bits of the hash, nearest first (then newest). */
  nearest(hex: string, maxDistance: number, limit: number, excludeId?: number): { id: number; distance: number }[] {
    const h = parseInt(hex.slice(0, 8), 16) >>> 0;
    const l = parseInt(hex.slice(8, 16), 16) >>> 0;
    const found: { id: number; distance: number }[] = [];
    for (let i = 0; i < this.size; i++) {
      const d = popcount32((this.hi[i] ^ h) >>> 0) + popcount32((this.lo[i] ^ l) >>> 0);
      if (d <= maxDistance && this.ids[i] !== excludeId) found.push({ id: this.ids[i], distance: d });
    }
    found.sort((a, b) => a.distance - b.distance || b.id - a.id);
    return found.slice(0, limit);
  }
}
