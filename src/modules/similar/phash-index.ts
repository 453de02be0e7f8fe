import type { Db } from '../../db/engine.ts';
import { widen } from '../../core/typed-arrays.ts';
import { maxPostId, phashesAfter, publishedPhashes, publishedState } from './similar.repo.ts';

/** How far back each refresh looks for posts committed out of id order. */
const TAIL = 1000;

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
  /** Ids indexed among the last TAIL, so re-reading the tail adds each post once. */
  private readonly recent = new Set<number>();
  /** The 'published' counter and the change log's position when posts published from the approval queue were last read. */
  private published = 0;
  private seq = 0;

  async refresh(db: Db): Promise<void> {
    const state = await publishedState(db);
    // Ids are handed out before commit, so on PostgreSQL a lower id can appear after a higher one:
    // each refresh reads again the last TAIL ids and adds the ones it had not seen.
    let from = Math.max(0, this.maxId - TAIL);
    const top = await maxPostId(db);
    for (;;) {
      const rows = await phashesAfter(db, from, 20_000);
      if (rows.length === 0) break;
      for (const r of rows) {
        if (!r.phash || this.recent.has(r.id) || r.id <= this.maxId - TAIL) continue;
        this.push(r.id, r.phash);
        if (r.id > top - TAIL) this.recent.add(r.id);
      }
      from = rows[rows.length - 1].id;
      this.maxId = Math.max(this.maxId, from);
    }
    for (const id of this.recent) if (id <= this.maxId - TAIL) this.recent.delete(id);
    if (Number(state?.published ?? 0) !== this.published) await this.readPublished(db, Number(state?.seq ?? 0));
    this.published = Number(state?.published ?? 0);
  }

  /**
   * Adds the posts published from the approval queue (migration 015) that the log names up to
   * `upTo`: their ids are below the highest, where the tail read does not look.
   */
  private async readPublished(db: Db, upTo: number): Promise<void> {
    const rows = await publishedPhashes(db, this.seq, upTo);
    this.seq = upTo;
    if (rows.length === 0) return;
    const present = new Set(this.ids.subarray(0, this.size));
    for (const r of rows) {
      if (!r.phash || present.has(r.id)) continue;
      present.add(r.id);
      this.push(r.id, r.phash);
    }
  }

  private push(id: number, hex: string): void {
    if (this.size === this.ids.length) {
      this.ids = widen(this.ids, this.size * 2);
      this.hi = widen(this.hi, this.size * 2);
      this.lo = widen(this.lo, this.size * 2);
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
