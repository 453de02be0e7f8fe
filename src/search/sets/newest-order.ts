import { sql, type Kysely, type SqlBool } from 'kysely';
import type { DB } from '../../db/types.ts';
import { prepared } from '../../db/prepared.ts';
import { CHANGED } from '../../db/schema/tag-changes.ts';
import { DateColumn } from './date-column.ts';
import { IdSequence } from './id-sequence.ts';
import { setRange } from './post-set.ts';

/** A range of creation times; a bound is excluded when its `Open` flag is set. */
type TimeRange = { lo: number; hi: number; loOpen?: boolean; hiOpen?: boolean };

/**
 * What tells the order it is out of date: the posts counter, the highest id, and the 'published'
 * counter (posts published from the approval queue, with ids below the highest: migration 015).
 */
interface OrderState {
  total: number;
  maxId: number;
  published: number;
}

type Dated = { id: number; created_at: number };

/** The state, and the change log's position (deletes after it are read from the log). */
const postsState = prepared(
  () =>
    sql<{
      total: number;
      maxId: number | null;
      seq: number | null;
      published: number | null;
    }>`SELECT (SELECT value FROM counters WHERE name = 'posts') AS total, (SELECT max(id) FROM posts) AS "maxId", (SELECT max(seq) FROM tag_changes) AS seq,
      (SELECT value FROM counters WHERE name = 'published') AS published`,
);

/**
 * Every post id and date in newest-first order, so the posts of a range of dates are a stretch
 * of it found by two binary searches, and a date order is a walk of it even when ids do not
 * follow dates (an import). New posts only ever come first, so
 * an upload prepends; anything else (a delete) reloads. Kept per process: the ids as runs of
 * consecutive ids while posts keep their upload order (IdSequence; else 4 bytes a post), the
 * dates as varint gaps (DateColumn, ~3 bytes a post).
 */
export class NewestOrder {
  private ids = IdSequence.of(new Int32Array(0));
  /** The dates of the posts (created_at), ascending: ids[i] has the (length - 1 - i)th. */
  private times = new DateColumn();
  private total = -1;
  private maxId = 0;
  private published = 0;
  /** The change log's position at the last refresh. */
  private seq = 0;
  /** The data version read before the last refresh that refreshAt was given. */
  private versionSeen = -1;

  /** Whether newer posts always have higher ids (so newest-first is also id-descending). */
  private get idsFollowDates(): boolean {
    return this.ids.descending;
  }

  /**
   * Brings the arrays up to date with the posts table. Resolves to whether ids follow dates:
   * posts get their date when uploaded, so they do unless dates were set otherwise (an import).
   * New posts are read by id (those above the highest seen) and put first when they are the
   * newest; deleted ones are found in the change log (tag_changes logs every delete) and taken
   * out in memory; posts published from the approval queue (below the highest id) are named by the
   * log too, and put in their place by date. Anything else (a post dated among older ones, a log that no longer reaches
   * back, writes racing the reads) reads every post again.
   */
  async refresh(db: Kysely<DB>): Promise<boolean> {
    // One refresh at a time: the first reads every post (ten million at Danbooru's size), and
    // requests arriving meanwhile would each read them all again. A request that finds one
    // running waits for it, then refreshes from there (a state read when nothing changed since).
    if (this.refreshing) await this.refreshing.catch(() => {});
    this.refreshing ??= this.refreshOnce(db).finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  private refreshing: Promise<boolean> | null = null;

  private async refreshOnce(db: Kysely<DB>): Promise<boolean> {
    const [row] = await postsState(db, {});
    const now = { total: Number(row.total), maxId: Number(row.maxId ?? 0), seq: Number(row.seq ?? 0), published: Number(row.published ?? 0) };
    if (now.total === this.total && now.maxId === this.maxId && now.published === this.published) return this.idsFollowDates;
    const from = { total: this.total, maxId: this.maxId };
    const changes = this.total >= 0 ? await this.changesSince(db, now) : null;
    // Another request caught up meanwhile: start again from where it left the order.
    if (this.total !== from.total || this.maxId !== from.maxId) return this.refreshOnce(db);
    if (!changes || !this.apply(changes)) await this.readAll(db, now.total);
    this.total = now.total;
    this.maxId = now.maxId;
    this.published = now.published;
    this.seq = now.seq;
    return this.idsFollowDates;
  }

  /** The posts added and deleted since the last refresh, read without changing anything; null when the log cannot say. */
  private async changesSince(db: Kysely<DB>, now: OrderState & { seq: number }) {
    // Sorted here: asked to sort, SQLite walks the whole date index for the few posts above maxId.
    const newer =
      now.maxId > this.maxId
        ? (await db.selectFrom('posts').select(['id', 'created_at']).where('id', '>', this.maxId).execute()).sort(
            (a, b) => Number(b.created_at) - Number(a.created_at) || b.id - a.id,
          )
        : [];
    const published = now.published !== this.published ? await this.publishedSince(db, now.seq) : [];
    if (published === null) return null;
    const gone = this.total + newer.length + published.length - now.total;
    const deleted = gone > 0 ? await this.deletedSince(db, now.seq) : [];
    return deleted !== null && deleted.length === gone ? { newer, published, deleted } : null;
  }

  /** Posts published from the approval queue up to log position `upTo`, below the highest id seen (those above are new posts); null when the log no longer reaches back. */
  private async publishedSince(db: Kysely<DB>, upTo: number): Promise<Dated[] | null> {
    const rows = await db
      .selectFrom('tag_changes')
      .innerJoin('posts', 'posts.id', 'tag_changes.post_id')
      .select(['posts.id', 'posts.created_at'])
      .distinct()
      .where('tag_changes.seq', '>', this.seq)
      .where('tag_changes.seq', '<=', upTo)
      .where(sql<SqlBool>`(tag_changes.what & ${CHANGED.published}) <> 0`)
      .where('posts.id', '<=', this.maxId)
      .execute();
    const [oldest] = await db.selectFrom('tag_changes').select(sql<number>`min(seq)`.as('seq')).execute();
    return oldest?.seq != null && Number(oldest.seq) > this.seq + 1 ? null : rows;
  }

  /** Takes the deleted posts out, puts the published ones in place and the new ones first; false when a new one is not the newest (then all are read). */
  private apply(changes: { newer: Dated[]; published: Dated[]; deleted: number[] }): boolean {
    const { newer, published, deleted } = changes;
    if (deleted.length) this.remove(new Set(deleted));
    if (published.length) this.insert(published);
    if (newer.length === 0) return true;
    if (newer[newer.length - 1].created_at < this.times.last) return false;
    this.ids = this.ids.prepend(Int32Array.from(newer, (r) => r.id));
    for (let i = newer.length - 1; i >= 0; i--) this.times.push(newer[i].created_at);
    return true;
  }

  /** Posts of the order deleted up to log position `upTo`; null when the log no longer reaches back to the last refresh. */
  private async deletedSince(db: Kysely<DB>, upTo: number): Promise<number[] | null> {
    const logged = await db
      .selectFrom('tag_changes')
      .select(['post_id'])
      .distinct()
      .where('seq', '>', this.seq)
      .where('seq', '<=', upTo)
      .where(sql<SqlBool>`(what & ${CHANGED.gone}) <> 0`)
      .where(({ not, exists, selectFrom }) => not(exists(selectFrom('posts').select('posts.id').whereRef('posts.id', '=', 'tag_changes.post_id'))))
      .execute();
    const [oldest] = await db.selectFrom('tag_changes').select(sql<number>`min(seq)`.as('seq')).execute();
    if (oldest?.seq != null && Number(oldest.seq) > this.seq + 1) return null;
    return logged.map((r) => r.post_id).filter((id) => id <= this.maxId);
  }

  /** Takes posts out of the arrays (no read of the database: a copy of each array). */
  private remove(ids: Set<number>): void {
    const all = this.ids.toArray();
    const times = this.times.descending();
    let n = 0;
    for (let i = 0; i < all.length; i++) {
      if (ids.has(all[i])) continue;
      all[n] = all[i];
      times[n++] = times[i];
    }
    this.ids = IdSequence.of(all.slice(0, n));
    this.times = DateColumn.fromDescending(times, n);
  }

  /**
   * Puts posts in their places by date, newest first (a copy of each array, as remove makes); a
   * post already there (read whole meanwhile) is moved, not doubled.
   */
  private insert(posts: Dated[]): void {
    const adding = new Set(posts.map((p) => p.id));
    const add = [...posts].sort((a, b) => b.created_at - a.created_at || b.id - a.id);
    const all = this.ids.toArray();
    const times = this.times.descending();
    const ids = new Int32Array(all.length + add.length);
    const dates = new Float64Array(ids.length);
    let n = 0;
    let j = 0;
    const put = (id: number, date: number) => {
      ids[n] = id;
      dates[n++] = date;
    };
    for (let i = 0; i < all.length; i++) {
      if (adding.has(all[i])) continue;
      while (j < add.length && (add[j].created_at > times[i] || (add[j].created_at === times[i] && add[j].id > all[i]))) put(add[j].id, add[j++].created_at);
      put(all[i], times[i]);
    }
    for (; j < add.length; j++) put(add[j].id, add[j].created_at);
    this.ids = IdSequence.of(ids.slice(0, n));
    this.times = DateColumn.fromDescending(dates, n);
  }

  /** Reads every post, in keyset batches into typed arrays: a million row objects at once would cost ~100 MB. */
  private async readAll(db: Kysely<DB>, total: number): Promise<void> {
    const ids = new Int32Array(total + 1024);
    const times = new Float64Array(ids.length);
    let n = 0;
    let last: { created_at: number; id: number } | undefined;
    for (;;) {
      let q = db.selectFrom('posts').select(['id', 'created_at']).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(20_000);
      if (last) {
        const { created_at, id } = last;
        q = q.where(sql<SqlBool>`(created_at, id) < (${created_at}, ${id})`);
      }
      const rows = await q.execute();
      if (rows.length === 0) break;
      for (const r of rows) {
        if (n === ids.length) break;
        ids[n] = r.id;
        times[n++] = r.created_at;
      }
      last = rows[rows.length - 1];
    }
    this.ids = IdSequence.of(ids.slice(0, n));
    this.times = DateColumn.fromDescending(times, n);
  }

  /**
   * refresh, skipped when the data version (the `version` counter: every upload, edit and delete
   * moves it) is the one of a refresh already done, as read before it: the posts cannot have
   * changed since. Saves a statement on requests that read the version anyway.
   */
  async refreshAt(db: Kysely<DB>, version?: number): Promise<boolean> {
    if (version !== undefined && version === this.versionSeen) return this.idsFollowDates;
    const follows = await this.refresh(db);
    if (version !== undefined && version > this.versionSeen) this.versionSeen = version;
    return follows;
  }

  /** The highest post id (call refresh first). */
  get newestId(): number {
    return this.maxId;
  }

  /** Bytes held: the ids, the dates, and the bitmap of every post once a search negated. */
  bytes(): number {
    return this.ids.bytes() + this.times.bytes() + (this.all?.bits.byteLength ?? 0);
  }

  /** Posts in the order (call refresh first). */
  get size(): number {
    return this.ids.length;
  }

  /**
   * Every post as a bitmap of `words` 32-bit words (bit i: post i exists), for searches that
   * negate (call refresh first). Kept until the posts change.
   */
  allPosts(words: number): Int32Array {
    const all = this.all;
    if (all && all.total === this.total && all.maxId === this.maxId && all.published === this.published && all.bits.length === words) return all.bits;
    const bits = new Int32Array(words);
    this.ids.markIn(bits);
    this.all = { total: this.total, maxId: this.maxId, published: this.published, bits };
    return bits;
  }

  private all: { total: number; maxId: number; published: number; bits: Int32Array } | null = null;

  /**
   * The lowest and highest id of the posts created in a range of times (a bound excluded when its
   * `Open` flag is set), when ids follow dates: those posts are then a run of the order, and every
   * post with an id between the two is one of them. null when there are none (call refresh first).
   */
  idsCreatedIn(r: TimeRange): [number, number] | null {
    const [start, end] = this.stretch(r);
    return start < end ? [this.ids.at(end - 1), this.ids.at(start)] : null;
  }

  /** A page of the posts created in a range of times, newest first ('desc') or oldest first, and how many there are (call refresh first). */
  createdIn(r: TimeRange, dir: 'asc' | 'desc', offset: number, limit: number): { ids: number[]; total: number } {
    const [start, end] = this.stretch(r);
    return { ids: this.slice(start, end, dir, offset, limit), total: end - start };
  }

  /** A page of every post, newest first ('desc') or oldest first (call refresh first). */
  page(dir: 'asc' | 'desc', offset: number, limit: number): number[] {
    return this.slice(0, this.ids.length, dir, offset, limit);
  }

  /** A page of the order's positions `start` to `end` (newest first, `end` excluded), in either direction. */
  private slice(start: number, end: number, dir: 'asc' | 'desc', offset: number, limit: number): number[] {
    if (dir === 'desc') return this.ids.slice(start + offset, Math.min(end, start + offset + limit));
    return this.ids.slice(Math.max(start, end - offset - limit), Math.max(start, end - offset)).reverse();
  }

  /** The order's positions (newest first) of the posts created in a range of times: from the first up to the last, excluded. */
  private stretch(r: TimeRange): [number, number] {
    const start = this.firstAtOrBelow(r.hi, r.hiOpen === true);
    return [start, Math.max(start, this.firstAtOrBelow(r.lo, r.loOpen !== true))];
  }

  /** Sets the bits of the posts created in a range of times: a run of ids while ids follow dates (call refresh first). */
  markCreatedIn(r: TimeRange, bits: Int32Array): void {
    const last = bits.length * 32 - 1;
    if (this.idsFollowDates) {
      const ids = this.idsCreatedIn(r);
      if (ids) setRange(bits, Math.max(0, ids[0]), Math.min(last, ids[1]));
      return;
    }
    const [start, end] = this.stretch(r);
    for (let i = start; i < end; i++) {
      const id = this.ids.at(i);
      if (id <= last) bits[id >>> 5] |= 1 << (id & 31);
    }
  }

  /**
   * Visits the ids newest first ('desc') or oldest first until `visit` returns false; newest
   * first, from the first post older than `after` (call refresh first).
   */
  eachByDate(dir: 'asc' | 'desc', visit: (id: number) => boolean, after?: { created: number; id: number }): void {
    const n = this.ids.length;
    if (dir === 'asc') {
      for (let i = n - 1; i >= 0; i--) if (!visit(this.ids.at(i))) return;
      return;
    }
    let i = 0;
    if (after) {
      // Posts of the cursor's own time come in descending ids: those below its id are older.
      i = this.firstAtOrBelow(after.created, false);
      const sameTime = this.firstAtOrBelow(after.created, true);
      while (i < sameTime && this.ids.at(i) >= after.id) i++;
    }
    for (; i < n; i++) if (!visit(this.ids.at(i))) return;
  }

  /** The first index (newest first) whose time is below `t` (strict) or at most `t`: how many are at or above it (above it). */
  private firstAtOrBelow(t: number, strict: boolean): number {
    return this.times.length - this.times.countBelow(t, !strict);
  }
}
