import { sql, type Kysely, type SqlBool } from 'kysely';
import type { DB } from '../../db/types.ts';
import { prepared } from '../../db/prepared.ts';
import { DateColumn } from './date-column.ts';
import { IdSequence } from './id-sequence.ts';

/**
 * The posts counter and the highest id, as the columns `total` and `maxId` of any query: what
 * tells the order it is out of date. Both engines write them alike.
 */
export const STATE_COLUMNS = sql`(SELECT value FROM counters WHERE name = 'posts') AS total, (SELECT max(id) FROM posts) AS "maxId"`;
export interface OrderState {
  total: number;
  maxId: number;
}
/** The state from a row that selected STATE_COLUMNS. */
export const stateOf = (row: { total?: unknown; maxId?: unknown }): OrderState => ({ total: Number(row.total), maxId: Number(row.maxId ?? 0) });

const postsState = prepared(() => sql<{ total: number; maxId: number | null }>`SELECT ${STATE_COLUMNS}`);

/**
 * Every post id and date in newest-first order, so a page of all posts at any offset (page 20,000
 * too) is a slice of an array instead of a walk over the date index, and the
 * number of posts between two dates is two binary searches. New posts only ever come first, so
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
  /** The data version read before the last refresh that refreshAt was given. */
  private versionSeen = -1;

  /** Whether newer posts always have higher ids (so newest-first is also id-descending). */
  private get idsFollowDates(): boolean {
    return this.ids.descending;
  }

  private async state(db: Kysely<DB>): Promise<OrderState> {
    const [row] = await postsState(db, {});
    return stateOf(row);
  }

  /**
   * A newest-first page read with the state that proves the order current, in one statement:
   * `read` gets the ids the order holds now and returns what it read, with the state
   * (STATE_COLUMNS) of the same statement. When that is not the order's state (posts were added
   * or deleted meanwhile), the order catches up and the page is read again.
   */
  async page<T extends { state?: OrderState }>(db: Kysely<DB>, offset: number, limit: number, read: (ids: number[]) => Promise<T>): Promise<T> {
    if (this.total >= 0) {
      const page = await read(this.sliceNow(offset, limit));
      if (page.state && page.state.total === this.total && page.state.maxId === this.maxId) return page;
    }
    await this.refresh(db);
    return read(this.sliceNow(offset, limit));
  }

  /**
   * Brings the arrays up to date with the posts table. Resolves to whether ids follow dates:
   * posts get their date when uploaded, so they do unless dates were set otherwise (an import).
   */
  async refresh(db: Kysely<DB>): Promise<boolean> {
    const now = await this.state(db);
    if (now.total === this.total && now.maxId === this.maxId) return this.idsFollowDates;
    const from = { total: this.total, maxId: this.maxId };
    const added = now.total - this.total;
    const newer =
      this.total >= 0 && added > 0
        ? await db.selectFrom('posts').select(['id', 'created_at']).where('id', '>', this.maxId).orderBy('created_at', 'desc').orderBy('id', 'desc').execute()
        : null;
    // Another request caught up while the new posts were read: start again from where it left the order.
    if (this.total !== from.total || this.maxId !== from.maxId) return this.refresh(db);
    const newestAt = this.times.last;
    // Prepend only when nothing was deleted and every new post is newer than all the others.
    if (newer && newer.length === added && newer[newer.length - 1].created_at >= newestAt) {
      const block = Int32Array.from(newer, (r) => r.id);
      this.ids = this.ids.prepend(block);
      for (let i = newer.length - 1; i >= 0; i--) this.times.push(newer[i].created_at);
    } else {
      // Read in keyset batches into typed arrays: a million row objects at once would cost ~100 MB.
      const ids = new Int32Array(now.total + 1024);
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
    this.total = now.total;
    this.maxId = now.maxId;
    return this.idsFollowDates;
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

  /** Posts in the order (call refresh first). */
  get size(): number {
    return this.ids.length;
  }

  /**
   * Every post as a bitmap of `words` 32-bit words (bit i: post i exists), for searches that
   * negate (call refresh first). Kept until the posts change.
   */
  allPosts(words: number): Int32Array {
    const key = `${this.total}:${this.maxId}:${words}`;
    if (this.all?.key !== key) {
      const bits = new Int32Array(words);
      this.ids.markIn(bits);
      this.all = { key, bits };
    }
    return this.all.bits;
  }

  private all: { key: string; bits: Int32Array } | null = null;

  /** How many posts have a higher id, when ids follow dates (call refresh first). */
  newerThanId(id: number): number {
    return this.ids.countAbove(id);
  }

  /** The ids of a newest-first page as the order holds them now (fewer, or none, past the end). */
  private sliceNow(offset: number, limit: number): number[] {
    return this.ids.slice(offset, offset + limit);
  }

  /** How many posts have from <= created_at <= to (either bound may be open). */
  async countBetween(db: Kysely<DB>, from = -Infinity, to = Infinity): Promise<number> {
    await this.refresh(db);
    return Math.max(0, this.firstAtOrBelow(from, true) - this.firstAtOrBelow(to, false));
  }

  /** The first index (newest first) whose time is below `t` (strict) or at most `t`: how many are at or above it (above it). */
  private firstAtOrBelow(t: number, strict: boolean): number {
    return this.times.length - this.times.countBelow(t, !strict);
  }
}
