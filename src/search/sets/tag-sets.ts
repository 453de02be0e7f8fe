import type { Database } from '../../db/engine.ts';
import { sql, type Expression, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { DB } from '../../db/types.ts';
import { type IdReader, IdLists, varintLength } from './id-list.ts';
import { DecodedLists } from './decoded-lists.ts';
import { prepared, preparedOnDatabase } from '../../db/prepared.ts';
import { counter } from '../../db/counters.ts';
import { CHANGED, TAG_CHANGES_KEPT } from '../../db/schema/tag-changes.ts';
import { widen } from '../../core/typed-arrays.ts';
import { arrayBytes, MAP_ENTRY } from '../../core/heap-estimate.ts';
import { type Descending, descending, markIds, orInto } from './post-set.ts';

/**
 * Memory the tag sets of one process may take. The most used tags take MOST_USED_SHARE of it
 * (18 MB), the least used the rest: one tag read from the database costs an index walk (~50 us
 * under load) whatever its size, while a tag of 30 posts is kept in ~100 bytes. At a million
 * posts with 50,000 tags on 15 million links (the benchmark's board) every tag fits in 22 MB:
 * bitmaps of the 22 tags on 1 post in 16 or more and id lists of the rest. Several tags together
 * come from memory when all or all but one are kept; a search reads the tags not kept by key.
 */
export const TAG_SET_BUDGET = 24 * 1024 * 1024;
/**
 * On a larger board the budget grows with it, by this many bytes a post (the same 24 MB at a
 * million): at ten million posts 24 MB held the bitmaps of 14 tags, and a search of any other
 * common tag read millions of links from the database (seconds a query).
 */
export const TAG_BUDGET_PER_POST = 24;
const MOST_USED_SHARE = 0.75;
/** A tag on at least 1 post in this many (of the highest id) is kept as a bitmap: smaller than its id list, and tested in one step. */
const BITMAP_AT = 16;
/** Ids of headroom past the highest post, so uploads do not reallocate every bitmap each time. */
const HEADROOM = 8_192;
/** More new posts than this at once (an import) are read as a rebuild. */
const MAX_CATCH_UP = 50_000;
/** Changes kept beside the id lists before they are written into them. */
const COMPACT_AT = 4_096;
/**
 * ...or one change for this many ids in the lists, if more: writing the lists anew costs the same
 * whatever the changes, so a big board's changes (a backfill of 100,000 posts) are written at the
 * same cost an id as a small one's, not every few hundred posts.
 */
const COMPACT_SHARE = 64;
/** Reading every tag, the event loop gets a turn after this long. */
const PAUSE_AFTER_MS = 20;
/**
 * The decoded id lists of a process, within 6 MB for every kind of set. A search reads a listed
 * tag's posts whole, and decoding a tag on 50,000 posts from its varint gaps for every query was
 * a third of a tag search's time: the lists searched recently stay decoded until a change touches them.
 */
const DECODED = new DecodedLists(6 * 1024 * 1024);
/** Shorter lists decode in less time than a lookup and its upkeep cost. */
const DECODED_FROM = 256;

interface State {
  version: number;
  seq: number;
  maxId: number;
}

export interface TagSetOptions {
  /** Bytes the sets may take at least (TAG_SET_BUDGET). */
  budget?: number;
  /** Bytes a post (of the highest id) they may take when that is more (TAG_BUDGET_PER_POST; 0 when `budget` is given alone). */
  budgetPerPost?: number;
  /** A tag on at least 1 post in `bitmapAt` gets a bitmap (BITMAP_AT). */
  bitmapAt?: number;
  /** Changes kept beside the id lists before they are written into them (COMPACT_AT). */
  compactAt?: number;
  /** Lists of at least this many posts stay decoded once searched (DECODED_FROM). */
  decodedFrom?: number;
  /** The share of the budget the most used tags take (MOST_USED_SHARE). */
  mostUsedShare?: number;
}

/** What a PostSets keeps the posts of (tags, title words): its keys are numbers. */
export interface SetSource {
  /** Keys that have posts, with how many: the most used first ('desc') or the least used, at most `limit`. */
  keys(db: Kysely<DB>, dir: 'asc' | 'desc', limit: number): Promise<{ id: number; count: number }[]>;
  /** A key's posts as one text of ids ('3,1,2'), and as bitmap words ('w:bits,...'; see readWords). */
  idsText(db: Database, key: number): Promise<string>;
  bitsText(db: Database, key: number): Promise<string>;
  /** The links (post, key) of the posts that `which` holds for, given the column of post ids (see postsWhere). */
  links(db: Database, which: (postId: Expression<unknown>) => RawBuilder<SqlBool>): Promise<{ post_id: number; key: number }[]>;
  /**
   * The changes of the log (bits of CHANGED) after which a post's keys are read again; with
   * CHANGED.tagAdded, the tags added alone are applied as the log says (keys are tag ids).
   */
  changes: number;
}

/** Posts above an id, or the listed ones, as a condition on a column of post ids. */
function postsWhere(db: Database, posts: { above: number } | { ids: number[] }) {
  return (postId: Expression<unknown>) => ('above' in posts ? sql<SqlBool>`${postId} > ${posts.above}` : db.oneOf(postId, db.listParam(posts.ids)));
}

/**
 * idsText and bitsText of a SetSource from the SQL of one key's posts (selecting post_id).
 * Each post is in a key's posts once, so the sum of a bitmap word's bits is their OR: the
 * database hands over words, not links, as one text, not a row each (row objects for every tag
 * would weigh on each worker's heap many times what the texts do).
 */
export function keyReaders(postsOf: (key: unknown) => RawBuilder<unknown>): Pick<SetSource, 'idsText' | 'bitsText'> {
  const ids = preparedOnDatabase(
    (db, p: { key: number }) => sql<{ t: string | null }>`SELECT ${db.joinedText(sql.ref('post_id'))} AS t FROM (${postsOf(p.key)}) k`,
  );
  const bits = preparedOnDatabase(
    (db, p: { key: number }) => sql<{ t: string | null }>`SELECT ${db.joinedText(sql`w || ':' || b`)} AS t
    FROM (SELECT post_id / 32 AS w, sum(1 << (post_id % 32)) AS b FROM (${postsOf(p.key)}) k GROUP BY post_id / 32) x`,
  );
  return {
    idsText: async (db, key) => (await ids(db, { key }))[0]?.t ?? '',
    bitsText: async (db, key) => (await bits(db, { key }))[0]?.t ?? '',
  };
}

/** Tags: their links in post_tags. */
const TAG_SOURCE: SetSource = {
  keys: (db, dir, limit) =>
    db
      .selectFrom('tags')
      .select(['id', 'post_count as count'])
      .where('post_count', '>', 0)
      .orderBy('post_count', dir)
      .orderBy('id', dir)
      .limit(Math.ceil(limit))
      .execute(),
  ...keyReaders((key) => sql`SELECT post_id FROM post_tags WHERE tag_id = ${key}`),
  links: (db, which) =>
    db
      .selectFrom('post_tags')
      .select(['post_id', 'tag_id as key'])
      .where(which(sql.ref('post_id')))
      .execute(),
  changes: CHANGED.tags | CHANGED.gone | CHANGED.tagAdded,
};

/** The log's entries after `seq` that say a change of `mask` (bits of CHANGED), oldest first. */
const changesSince = prepared((db, p: { seq: number; mask: number }) =>
  db
    .selectFrom('tag_changes')
    .select(['seq', 'post_id', 'what', 'tag_id'])
    .where('seq', '>', p.seq)
    .where(sql<SqlBool>`(what & ${p.mask}) <> 0`)
    .orderBy('seq'),
);

const stateRow = prepared(
  () => sql<{ version: number | null; seq: number | null; maxId: number | null }>`SELECT
  (SELECT value FROM counters WHERE name = 'version') AS version, (SELECT max(seq) FROM tag_changes) AS seq, (SELECT max(id) FROM posts) AS "maxId"`,
);

/**
 * The posts of keys (tags; title words, title-word-sets.ts) read from a SetSource, kept per
 * process within a memory budget (TAG_SET_BUDGET for tags): the densest as bitmaps over post ids
 * (bit i: post i has the key), the others as compressed id lists (id-list.ts). Posts with several
 * kept tags, newest first, are then read from memory: bitmaps ANDed word by word from the highest
 * id down, or the smallest id list walked and each of its posts tested against the others; their
 * number is exact. The database would look up one tag's links among the other's one by one.
 * Which keys are kept is decided when the sets are read: the most used then, and the least used.
 *
 * Kept current with the data: each use compares the data version (counters) with the one the sets
 * were read at; when it moved, new posts are read by id (the ids above the highest seen) and the
 * posts whose tags or title were edited or that were deleted come from the tag_changes log
 * (db/migrations/001-initial-schema). Bitmaps are changed in place. An id list is not: its changed posts
 * are marked stale and the keys' current posts kept beside it (`extra`) until COMPACT_AT changes,
 * when the lists are written anew. A process further behind than the log reaches reads every key
 * again.
 */
export class PostSets {
  private bits = new Map<number, Int32Array>();
  private lists = new IdLists();
  /** Per tag id: 1 + the number of its id list in `lists`, 0 when it has none. */
  private listOf = new Int32Array(0);
  /** Per id list, its tag. */
  private listed = new Int32Array(0);
  /** Per listed tag: posts that have it and are not in its list (new, or changed since), highest first. */
  private extra = new Map<number, number[]>();
  /** Posts changed since the lists were written: their entries in the lists are ignored. Its length is every bitmap's. */
  private stale: Int32Array = new Int32Array(0);
  /** Posts in some list of `extra` (what clear() must take out of them). Its length is every bitmap's. */
  private inExtra: Int32Array = new Int32Array(0);
  private changes = 0;
  /** Ids in all the id lists. */
  private listedIds = 0;
  /** Whether any post is marked in `stale`. */
  private anyStale = false;
  private state: State = { version: -1, seq: 0, maxId: 0 };
  private built = false;
  private syncing: Promise<void> | null = null;
  private readonly minBudget: number;
  private readonly budgetPerPost: number;
  private readonly bitmapAt: number;
  private readonly compactAt: number;
  private readonly decodedFrom: number;
  private readonly mostUsedShare: number;

  constructor(
    private readonly source: SetSource,
    o: TagSetOptions = {},
  ) {
    this.mostUsedShare = o.mostUsedShare ?? MOST_USED_SHARE;
    this.minBudget = o.budget ?? TAG_SET_BUDGET;
    this.budgetPerPost = o.budgetPerPost ?? (o.budget === undefined ? TAG_BUDGET_PER_POST : 0);
    this.bitmapAt = o.bitmapAt ?? BITMAP_AT;
    this.compactAt = o.compactAt ?? COMPACT_AT;
    this.decodedFrom = o.decodedFrom ?? DECODED_FROM;
  }

  /** The bytes the sets may take on a board whose highest post id is `maxId`. */
  budgetAt(maxId: number): number {
    return Math.max(this.minBudget, this.budgetPerPost * (maxId + 1));
  }

  /** Brings the sets up to the data at `version` (the data version, read now if not given), reading every kept tag the first time. */
  async current(db: Database, version?: number): Promise<this> {
    const seen = version ?? (await counter(db, 'version'));
    // A sync already under way may have read the state before this version: then sync again.
    while (!this.built || this.state.version < seen) {
      this.syncing ??= this.sync(db).finally(() => {
        this.syncing = null;
      });
      await this.syncing;
    }
    return this;
  }

  /**
   * Bytes held, by part: the bitmaps, the id lists (with the arrays that find a tag's list), the
   * lists kept decoded (DECODED's share of this kind), and the rest: the stale and inExtra bitmaps,
   * and the posts kept beside the lists (`extra`, estimated: a map entry and a JS array each).
   */
  memory(): { bitmaps: number; lists: number; decoded: number; other: number } {
    let bitmaps = 0;
    for (const map of this.bits.values()) bitmaps += map.byteLength;
    let extra = 0;
    for (const ids of this.extra.values()) extra += MAP_ENTRY + arrayBytes(ids.length);
    return {
      bitmaps,
      lists: this.lists.bytes() + this.listOf.byteLength + this.listed.byteLength,
      decoded: DECODED.bytes(this.owner),
      other: this.stale.byteLength + this.inExtra.byteLength + extra,
    };
  }

  /** 32-bit words in each bitmap (post ids up to 32 times this, less one). */
  private get words(): number {
    return this.stale.length;
  }

  /** Whether the tag is kept here. */
  has(tagId: number): boolean {
    return this.bits.has(tagId) || this.listNumber(tagId) >= 0;
  }

  /** Post ids up to 32 times this (less one) fit the bitmaps. */
  get bitmapWords(): number {
    return this.words;
  }

  /** A kept tag's posts: its bitmap (shared: read it, never write it), or its ids highest first. */
  postsOf(tagId: number): { bits: Int32Array } | { ids: Int32Array } {
    const bits = this.bits.get(tagId);
    return bits ? { bits } : { ids: this.decoded(tagId) };
  }

  /** How many posts a kept tag holds at most: a bitmap counts as every id it can hold. */
  sizeOf(tagId: number): number {
    const bits = this.bits.get(tagId);
    if (bits) return bits.length * 32;
    const k = this.listNumber(tagId);
    return (k >= 0 ? this.lists.size(k) : 0) + (this.extra.get(tagId)?.length ?? 0);
  }

  /** Sets the bits of a kept tag's posts in `out` (ids past its end left out): a list is read straight into it, not decoded first. */
  markInto(tagId: number, out: Int32Array): void {
    const bits = this.bits.get(tagId);
    const decoded = DECODED.get(this.owner, tagId);
    if (bits || decoded) {
      orInto(bits ? { bits } : { ids: decoded! }, out);
      return;
    }
    const k = this.listNumber(tagId);
    if (k >= 0) this.lists.mark(k, out, this.anyStale ? this.stale : null);
    markIds(this.extra.get(tagId) ?? NONE, out);
  }

  /**
   * A kept tag's posts from the highest down, read as a walk asks for them: a list is decoded only
   * as far as the walk goes, into no array (decoding a title word's 10,000 posts whole for a page
   * from the top was a third of the search's time, and most of its garbage).
   */
  descendingOf(tagId: number): Descending {
    const bits = this.bits.get(tagId);
    const decoded = bits ? null : DECODED.get(this.owner, tagId);
    if (bits || decoded) return descending(bits ? { bits } : { ids: decoded! });
    const k = this.listNumber(tagId);
    const extra = this.extra.get(tagId) ?? NONE;
    const list = k >= 0 ? this.lists.reader(k) : null;
    if (list && extra.length === 0 && !this.anyStale) return list;
    return new MergedDescending(list, extra, this.anyStale ? this.stale : null);
  }

  /** A listed tag's ids, highest first, if they are kept decoded (shared: read them, never write them). */
  decodedOf(tagId: number): Int32Array | undefined {
    return this.bits.has(tagId) ? undefined : DECODED.get(this.owner, tagId);
  }

  /** This kind of set's number among the decoded lists. */
  private readonly owner = DECODED.owner();

  /** A listed tag's posts, highest first: decoded unless kept so (shared: read them, never write them). */
  private decoded(tagId: number): Int32Array {
    const kept = DECODED.get(this.owner, tagId);
    if (kept) return kept;
    let ids = this.descending(tagId);
    if (ids.length >= this.decodedFrom) {
      // Kept in an array of its own size (stale posts left out may have shortened it).
      if (ids.byteLength !== ids.buffer.byteLength) ids = ids.slice();
      DECODED.set(this.owner, tagId, ids);
    }
    return ids;
  }

  /** Decoded lists are dropped when their posts may have changed: those of `tagIds`, or all. */
  private forgetDecoded(tagIds?: Iterable<number>): void {
    DECODED.forget(this.owner, tagIds);
  }

  /** Whether the tag is kept as a bitmap. */
  hasBitmap(tagId: number): boolean {
    return this.bits.has(tagId);
  }

  /** The number of the tag's id list, or -1. */
  private listNumber(tagId: number): number {
    return tagId < this.listOf.length ? this.listOf[tagId] - 1 : -1;
  }

  /** A listed tag's posts, highest first: its list decoded whole, stale posts left out, and the ones kept beside it merged in. */
  private descending(tagId: number): Int32Array {
    const extra = this.extra.get(tagId) ?? NONE;
    const k = this.listNumber(tagId);
    const from = extra.length;
    const out = new Int32Array(from + (k >= 0 ? this.lists.size(k) : 0));
    if (k >= 0) this.lists.decode(k, out.subarray(from));
    let end = out.length;
    if (this.anyStale) {
      const stale = this.stale;
      let m = from;
      for (let i = from; i < end; i++) if ((stale[out[i] >>> 5] & (1 << (out[i] & 31))) === 0) out[m++] = out[i];
      end = m;
    }
    if (from === 0) return out.subarray(0, end);
    // The list sits after room for the extra posts: the merge writes no further than it has read.
    let n = 0;
    let e = 0;
    for (let i = from; e < from || i < end; ) {
      const x = e < from ? extra[e] : -1;
      const y = i < end ? out[i] : -1;
      if (x > y) {
        out[n++] = x;
        e++;
      } else {
        out[n++] = y;
        i++;
        if (x === y) e++;
      }
    }
    return out.subarray(0, n);
  }

  private async sync(db: Database): Promise<void> {
    const [row] = await stateRow(db, {});
    const now: State = { version: Number(row.version ?? 0), seq: Number(row.seq ?? 0), maxId: Number(row.maxId ?? 0) };
    if (!this.built || now.maxId - this.state.maxId > MAX_CATCH_UP || !(await this.catchUp(db, now))) await this.build(db, now);
    this.state = now;
    this.built = true;
  }

  /**
   * Applies the posts added and the tag changes logged since the last sync; false when the log no
   * longer holds them all (a rebuild is needed). Everything is read after `now`, so what changes
   * meanwhile is read again by the next sync (reading a post's tags again is harmless).
   */
  private async catchUp(db: Database, now: State): Promise<boolean> {
    const logged = await changesSince(db, { seq: this.state.seq, mask: this.source.changes });
    const newest = Math.max(now.seq, logged.length ? logged[logged.length - 1].seq : 0);
    if (this.state.seq < newest - TAG_CHANGES_KEPT) return false;
    const reread = new Set(logged.filter((r) => r.what !== CHANGED.tagAdded).map((r) => r.post_id));
    const changed = [...reread];
    // Links the log names as added alone (an implication's backfill) are taken as they are: their posts are neither read again nor marked stale.
    const tagsAdded = logged
      .filter((r) => r.what === CHANGED.tagAdded && r.tag_id !== null && !reread.has(r.post_id))
      .map((r) => ({ post_id: r.post_id, key: r.tag_id! }));
    // Everything read first, then applied at once: a request meanwhile sees the sets before or after, never half way.
    const added = (await this.source.links(db, postsWhere(db, { above: this.state.maxId }))).concat(tagsAdded);
    const links = changed.length ? added.concat(await this.source.links(db, postsWhere(db, { ids: changed }))) : added;
    this.grow(links.reduce((m, l) => Math.max(m, l.post_id), now.maxId));
    for (const id of changed) this.clear(id);
    const touched = new Set<number>();
    for (const l of links) {
      const map = this.bits.get(l.key);
      if (map) map[l.post_id >>> 5] |= 1 << (l.post_id & 31);
      else if (this.listNumber(l.key) >= 0) {
        const ids = this.extra.get(l.key) ?? [];
        ids.push(l.post_id);
        this.extra.set(l.key, ids);
        this.inExtra[l.post_id >>> 5] |= 1 << (l.post_id & 31);
        touched.add(l.key);
        this.changes++;
      }
    }
    for (const tagId of touched)
      this.extra.set(
        tagId,
        [...new Set(this.extra.get(tagId))].sort((a, b) => b - a),
      );
    // A changed post is taken out of every list (marked stale); new posts touch their tags' alone.
    this.forgetDecoded(changed.length ? undefined : touched);
    if (this.changes > Math.max(this.compactAt, this.listedIds / COMPACT_SHARE)) this.compact();
    return true;
  }

  /** Reads every kept tag anew: the most used, then the least used, that fit the budget (TAG_SET_BUDGET, or TAG_BUDGET_PER_POST a post). */
  private async build(db: Database, now: State): Promise<void> {
    // Built aside and swapped in at the end, so requests meanwhile use the previous sets whole.
    const size = Math.ceil((now.maxId + 1 + HEADROOM) / 32);
    const bits = new Map<number, Int32Array>();
    const lists = new IdLists();
    const listed: number[] = [];
    let used = 0;
    let pause = performance.now();
    /** Keeps the tag if it fits within `limit` bytes in all; false when it does not. */
    const keep = async (id: number, count: number, limit: number): Promise<boolean> => {
      if (count * this.bitmapAt >= now.maxId + 1) {
        if (used + size * 4 > limit) return false;
        const map = new Int32Array(size);
        readWords(await this.source.bitsText(db, id), map);
        bits.set(id, map);
      } else {
        // An id list takes about a gap's varint length a post, plus its tag's two numbers.
        if (used + count * gapBytes(now.maxId, count) > limit) return false;
        lists.add(
          readIdText(await this.source.idsText(db, id))
            .sort()
            .reverse(),
        );
        listed.push(id);
      }
      used = lists.encoded + bits.size * size * 4 + listed.length * 8;
      // Tens of thousands of reads: let requests that need no tag sets through now and then.
      if (performance.now() - pause > PAUSE_AFTER_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        pause = performance.now();
      }
      return true;
    };
    const budget = this.budgetAt(now.maxId);
    const most = await this.source.keys(db, 'desc', budget / 8);
    let top = 0;
    while (top < most.length && (await keep(most[top].id, most[top].count, budget * this.mostUsedShare))) top++;
    const taken = new Set(most.slice(0, top).map((t) => t.id));
    // Fewer keys than asked for are every key: the least used are the same ones reversed (a
    // rating's or a kind's count is a scan of every post, not read twice).
    const least =
      most.length < budget / 8 ? most.slice(Math.max(0, most.length - Math.floor(budget / 9))).reverse() : await this.source.keys(db, 'asc', budget / 9);
    for (const t of least) {
      if (taken.has(t.id) || !(await keep(t.id, t.count, budget))) break;
    }
    lists.trim();
    this.bits = bits;
    this.setLists(lists, listed);
    this.forgetDecoded();
    this.extra = new Map();
    this.stale = new Int32Array(size);
    this.inExtra = new Int32Array(size);
    this.anyStale = false;
    this.changes = 0;
  }

  private setLists(lists: IdLists, listed: ArrayLike<number>): void {
    let top = 0;
    for (let k = 0; k < listed.length; k++) top = Math.max(top, listed[k]);
    const listOf = new Int32Array(listed.length ? top + 1 : 0);
    for (let k = 0; k < listed.length; k++) listOf[listed[k]] = k + 1;
    this.lists = lists;
    this.listed = Int32Array.from(listed);
    this.listOf = listOf;
    this.listedIds = 0;
    for (let k = 0; k < lists.count; k++) this.listedIds += lists.size(k);
  }

  /** Writes the changes kept beside the id lists into them. */
  private compact(): void {
    const lists = new IdLists();
    for (const tagId of this.listed) lists.add(this.descending(tagId));
    lists.trim();
    this.setLists(lists, this.listed);
    this.forgetDecoded();
    this.extra = new Map();
    this.stale.fill(0);
    this.inExtra.fill(0);
    this.anyStale = false;
    this.changes = 0;
  }

  /** Makes room for post ids up to `maxId`. */
  private grow(maxId: number): void {
    if (maxId < this.words * 32) return;
    const words = Math.ceil((maxId + 1 + HEADROOM) / 32);
    for (const [id, map] of this.bits) this.bits.set(id, widen(map, words));
    this.stale = widen(this.stale, words);
    this.inExtra = widen(this.inExtra, words);
  }

  /** Takes a changed post out of every set (its links, read again, put it back). */
  private clear(postId: number): void {
    const w = postId >>> 5;
    if (w >= this.words) return;
    const bit = 1 << (postId & 31);
    for (const map of this.bits.values()) map[w] &= ~bit;
    this.stale[w] |= bit;
    this.anyStale = true;
    // Most changed posts are in no extra list: looking through them all for each was most of a big catch-up.
    if (this.inExtra[w] & bit)
      for (const [tagId, ids] of this.extra)
        if (ids.includes(postId))
          this.extra.set(
            tagId,
            ids.filter((id) => id !== postId),
          );
    this.changes++;
  }
}

/** The posts of tags (see PostSets). */
export class TagSets extends PostSets {
  constructor(o: TagSetOptions = {}) {
    super(TAG_SOURCE, o);
  }
}

const NONE: number[] = [];

/** Bytes a post in an id list of `count` posts among `maxId` takes: the varint length of the mean gap. */
function gapBytes(maxId: number, count: number): number {
  return varintLength((maxId + 1) / Math.max(1, count));
}

/** The numbers of a comma-separated text of post ids, without a string or number object for each. */
export function readIdText(text: string): Int32Array {
  if (text === '') return new Int32Array(0);
  let n = 1;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 44) n++;
  const ids = new Int32Array(n);
  let k = 0;
  let value = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 44) {
      ids[k++] = value;
      value = 0;
    } else value = value * 10 + (c - 48);
  }
  ids[k] = value;
  return ids;
}

/** Sets the words of a 'w:bits,w:bits' text (bits as a signed or unsigned 32-bit number) into `map`; words past its end are left out. */
function readWords(text: string, map: Int32Array): void {
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

/** A listed tag's posts from the highest down as descending() of PostSets has them: stale ones left out, the extra ones merged in. */
class MergedDescending implements Descending {
  private listed: number;
  private e = 0;

  constructor(
    private readonly list: IdReader | null,
    private readonly extra: ArrayLike<number>,
    private readonly stale: Int32Array | null,
  ) {
    this.listed = this.pull();
  }

  next(): number {
    const x = this.e < this.extra.length ? this.extra[this.e] : -1;
    if (x > this.listed) {
      this.e++;
      return x;
    }
    const y = this.listed;
    if (y >= 0) this.listed = this.pull();
    return y;
  }

  private pull(): number {
    if (!this.list) return -1;
    for (;;) {
      const id = this.list.next();
      if (id < 0 || this.stale === null || (this.stale[id >>> 5] & (1 << (id & 31))) === 0) return id;
    }
  }
}
