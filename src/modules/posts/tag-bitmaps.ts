import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/types.ts';
import { itemsByIds, linksStart, tagLinks, type Items } from './posts.repo.ts';
import type { Count } from './count-cache.ts';
import type { PostFilter } from './posts.query.ts';
import { listParam, oneOf, type DialectName } from '../../db/dialect.ts';
import { prepared } from '../../db/prepared.ts';
import { counter } from '../../db/counters.ts';
import { TAG_CHANGES_KEPT } from '../../db/migrations/012-tag-change-log.ts';

/** Memory the bitmaps of one process may take: 12 MB is the 96 most used tags at a million posts (>= 14,783 posts each). */
export const BITMAP_BUDGET = 12 * 1024 * 1024;
/** Ids of headroom past the highest post, so uploads do not reallocate every bitmap each time. */
const HEADROOM = 8_192;
/** More new posts than this at once (an import) are read as a rebuild. */
const MAX_CATCH_UP = 50_000;

interface State {
  version: number;
  seq: number;
  maxId: number;
}

const stateRow = prepared(() => sql<{ version: number | null; seq: number | null; maxId: number | null }>`SELECT
  (SELECT value FROM counters WHERE name = 'version') AS version, (SELECT max(seq) FROM tag_changes) AS seq, (SELECT max(id) FROM posts) AS "maxId"`);


/**
 * The posts of the most used tags as bitmaps over post ids (bit i of a tag's bitmap: post i has
 * the tag), kept per process within a memory budget (BITMAP_BUDGET): posts with two big tags,
 * newest first, are the words of both ANDed from the highest id down, and their number is exact
 * (a count of the bits), where the database would look up one tag's links among the other's one by
 * one. Which tags are kept is decided when the bitmaps are built: the most used then.
 *
 * Kept current with the data: each use compares the data version (counters) with the one the
 * bitmaps were read at; when it moved, new posts are read by id (the ids above the highest seen)
 * and the posts whose tags were edited or that were deleted come from the tag_changes log
 * (migration 012). A process further behind than the log reaches reads every tag again.
 */
export class TagBitmaps {
  private bits = new Map<number, Int32Array>();
  private words = 0;
  private state: State = { version: -1, seq: 0, maxId: 0 };
  private built = false;
  private syncing: Promise<void> | null = null;

  constructor(private readonly budget = BITMAP_BUDGET) {}

  /** Brings the bitmaps up to the data at `version` (the data version, read now if not given), reading every kept tag the first time. */
  async current(db: Kysely<DB>, dialect: DialectName, version?: number): Promise<this> {
    const seen = version ?? (await counter(db, 'version'));
    // A sync already under way may have read the state before this version: then sync again.
    while (!this.built || this.state.version < seen) {
      this.syncing ??= this.sync(db, dialect).finally(() => {
        this.syncing = null;
      });
      await this.syncing;
    }
    return this;
  }

  /** Whether the tag has a bitmap here. */
  has(tagId: number): boolean {
    return this.bits.has(tagId);
  }

  /** Whether the post has every one of the tags (each kept here). */
  hasAll(postId: number, tagIds: number[]): boolean {
    const w = postId >>> 5;
    if (w >= this.words) return false;
    const bit = 1 << (postId & 31);
    for (const id of tagIds) if ((this.bits.get(id)![w] & bit) === 0) return false;
    return true;
  }

  /** The ids of posts with every one of the tags (each kept here), highest first ('desc') or lowest first, from `offset`, at most `limit`. */
  page(tagIds: number[], dir: 'asc' | 'desc', offset: number, limit: number): number[] {
    const maps = tagIds.map((id) => this.bits.get(id)!);
    const out: number[] = [];
    let skip = offset;
    const step = dir === 'desc' ? -1 : 1;
    for (let w = dir === 'desc' ? this.words - 1 : 0; w >= 0 && w < this.words && out.length < limit; w += step) {
      let x = maps[0][w];
      for (let k = 1; k < maps.length && x !== 0; k++) x &= maps[k][w];
      if (x === 0) continue;
      const n = popcount(x);
      if (skip >= n) {
        skip -= n;
        continue;
      }
      while (x !== 0 && out.length < limit) {
        const b = dir === 'desc' ? 31 - Math.clz32(x) : 31 - Math.clz32(x & -x);
        x &= ~(1 << b);
        if (skip > 0) skip--;
        else out.push(w * 32 + b);
      }
    }
    return out;
  }

  /** How many posts have every one of the tags (each kept here). */
  count(tagIds: number[]): number {
    const maps = tagIds.map((id) => this.bits.get(id)!);
    let n = 0;
    for (let w = 0; w < this.words; w++) {
      let x = maps[0][w];
      for (let k = 1; k < maps.length && x !== 0; k++) x &= maps[k][w];
      if (x !== 0) n += popcount(x);
    }
    return n;
  }

  private async sync(db: Kysely<DB>, dialect: DialectName): Promise<void> {
    const [row] = await stateRow(db, {});
    const now: State = { version: Number(row.version ?? 0), seq: Number(row.seq ?? 0), maxId: Number(row.maxId ?? 0) };
    if (!this.built || now.maxId - this.state.maxId > MAX_CATCH_UP || !(await this.catchUp(db, dialect, now))) await this.build(db, dialect, now);
    this.state = now;
    this.built = true;
  }

  /**
   * Applies the posts added and the tag changes logged since the last sync; false when the log no
   * longer holds them all (a rebuild is needed). Everything is read after `now`, so what changes
   * meanwhile is read again by the next sync (reading a post's tags again is harmless).
   */
  private async catchUp(db: Kysely<DB>, dialect: DialectName, now: State): Promise<boolean> {
    const logged = await db.selectFrom('tag_changes').select(['seq', 'post_id']).where('seq', '>', this.state.seq).orderBy('seq').execute();
    const newest = logged.length ? logged[logged.length - 1].seq : now.seq;
    if (this.state.seq < newest - TAG_CHANGES_KEPT) return false;
    const changed = [...new Set(logged.map((r) => r.post_id))];
    const added = await db.selectFrom('post_tags').select(['post_id', 'tag_id']).where('post_id', '>', this.state.maxId).execute();
    const edited = changed.length
      ? await db.selectFrom('post_tags').select(['post_id', 'tag_id']).where(oneOf(dialect, sql.ref('post_id'), listParam(dialect, changed))).execute()
      : [];
    // Everything read first, then applied at once: a request meanwhile sees the bitmaps before or after, never half way.
    const links = [...added, ...edited];
    this.grow(links.reduce((m, l) => Math.max(m, l.post_id), now.maxId));
    for (const id of changed) this.clear(id);
    for (const l of links) this.set(l.tag_id, l.post_id);
    return true;
  }

  /** Reads every kept tag anew: the most used ones that fit the budget. */
  private async build(db: Kysely<DB>, dialect: DialectName, now: State): Promise<void> {
    // Built aside and swapped in at the end, so requests meanwhile use the previous bitmaps whole.
    const size = Math.ceil((now.maxId + 1 + HEADROOM) / 32);
    const fit = Math.floor(this.budget / (size * 4));
    const tags = fit > 0 ? await db.selectFrom('tags').select('id').where('post_count', '>', 0).orderBy('post_count', 'desc').orderBy('id').limit(fit).execute() : [];
    const bits = new Map<number, Int32Array>();
    for (const { id } of tags) {
      const map = new Int32Array(size);
      // Each post has a tag once, so the sum of a word's bits is their OR: the database hands over
      // words, not links, as one text ('w:bits,...'), not a row each: row objects for every tag
      // grew each worker's heap by ~24 MB at a million posts, the texts by ~1 MB.
      const words = dialect === 'sqlite'
        ? sql<{ t: string | null }>`SELECT group_concat(w || ':' || b) AS t FROM (SELECT post_id / 32 AS w, sum(1 << (post_id % 32)) AS b FROM post_tags WHERE tag_id = ${id} GROUP BY post_id / 32) x`
        : sql<{ t: string | null }>`SELECT string_agg(w || ':' || b, ',') AS t FROM (SELECT post_id / 32 AS w, sum(1 << (post_id % 32)) AS b FROM post_tags WHERE tag_id = ${id} GROUP BY post_id / 32) x`;
      readWords((await words.execute(db)).rows[0]?.t ?? '', map);
      bits.set(id, map);
    }
    this.bits = bits;
    this.words = size;
  }

  /** Makes room for post ids up to `maxId`. */
  private grow(maxId: number): void {
    if (maxId < this.words * 32) return;
    const words = Math.ceil((maxId + 1 + HEADROOM) / 32);
    for (const [id, map] of this.bits) {
      const wider = new Int32Array(words);
      wider.set(map);
      this.bits.set(id, wider);
    }
    this.words = words;
  }

  private clear(postId: number): void {
    const w = postId >>> 5;
    if (w >= this.words) return;
    for (const map of this.bits.values()) map[w] &= ~(1 << (postId & 31));
  }

  private set(tagId: number, postId: number): void {
    const map = this.bits.get(tagId);
    if (map) map[postId >>> 5] |= 1 << (postId & 31);
  }
}

/** Sets the words of a 'w:bits,w:bits' text (bits as a signed or unsigned 32-bit number) into `map`; words past its end are left out. */
export function readWords(text: string, map: Int32Array): void {
  let word = 0;
  let value = 0;
  let negative = false;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 44;
    if (c === 58) {
      word = value;
      value = 0;
    } else if (c === 44) {
      if (i > 0 && word < map.length) map[word] = (negative ? -value : value) | 0;
      value = 0;
      negative = false;
    } else if (c === 45) negative = true;
    else value = value * 10 + (c - 48);
  }
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

/**
 * Links of the tag without a bitmap read at a time: as many as should hold the page, from the
 * other tags' shares of all posts (read as if independent, plus half again), within these bounds.
 * The links read are also the sample that estimates the total, so a total not known yet reads
 * at least SAMPLE_LINKS.
 */
const MIN_BATCH = 64;
const MAX_BATCH = 2_000;
const SAMPLE_LINKS = 200;

/**
 * Posts with every tag of `f` (tags alone, newest or oldest first, when ids follow dates) from the
 * bitmaps: when every tag has one, the page and the exact total come from them alone; when one
 * tag has none, its links are walked in date order and each post tested against the others'
 * bitmaps, and the total is the share of matches among the links read, scaled to its post count
 * (exact when all of them were read). Null when more than one tag has no bitmap.
 */
export async function tagsByBitmaps(
  db: Kysely<DB>, dialect: DialectName, bitmaps: TagBitmaps, f: PostFilter, sort: 'newest' | 'oldest', offset: number, limit: number, posts: number,
  known?: Count, version?: number,
): Promise<{ rows: Items; count: Count } | null> {
  const bits = await bitmaps.current(db, dialect, version);
  const dir = sort === 'newest' ? 'desc' : 'asc';
  const withBits = f.tags.filter((t) => bits.has(t.id));
  const kept = withBits.map((t) => t.id);
  const walked = f.tags.filter((t) => !bits.has(t.id));
  if (walked.length === 0) {
    const ids = bits.page(kept, dir, offset, limit);
    return { rows: await itemsByIds(db, dialect, ids), count: known ?? { total: bits.count(kept), estimated: false } };
  }
  if (walked.length > 1) return null;
  const need = offset + limit;
  const share = withBits.reduce((p, t) => p * Math.min(1, t.count / Math.max(1, posts)), 1);
  const batch = Math.min(MAX_BATCH, Math.max(MIN_BATCH, known ? 0 : SAMPLE_LINKS, Math.ceil((need / Math.max(share, 1e-6)) * 1.5)));
  const matches: number[] = [];
  let read = 0;
  let after = linksStart(dir);
  for (;;) {
    const links = await tagLinks(db, dialect, dir, walked[0].id, after, batch);
    read += links.ids.length;
    for (const id of links.ids) if (bits.hasAll(id, kept)) matches.push(id);
    if (links.ids.length < batch) {
      return { rows: await itemsByIds(db, dialect, matches.slice(offset, need)), count: known ?? { total: matches.length, estimated: false } };
    }
    if (matches.length >= need) break;
    after = links.next;
  }
  const count = known ?? { total: Math.round((matches.length / read) * walked[0].count), estimated: true };
  return { rows: await itemsByIds(db, dialect, matches.slice(offset, need)), count };
}
