import { sql } from 'kysely';
import { MAP_ENTRY } from '../../core/heap-estimate.ts';
import { counter } from '../../db/counters.ts';
import type { Database } from '../../db/engine.ts';
import type { CountField, KeptNumbers } from './indexes.ts';

/** Entries the count log keeps (migrations/004-count-changes-logged.ts); a reader further behind reads every post. */
const LOG_KEPT = 10_000;
/** Ids read at once when reading every post; the event loop gets a turn between reads. */
const CHUNK = 50_000;
/** Ids of headroom past the highest post, so uploads do not reallocate the columns each time. */
const HEADROOM = 8_192;
/** A count at or above this is kept beside the column (few posts have one). */
const BIG = 0xff;

/**
 * One count of every post by id: a byte a post, the rare big ones in a map. Most posts have few
 * likes, favourites and comments; a byte instead of two keeps 1 MB a count a process at a
 * million posts (docs/benchmarks.md, Memory).
 */
export class Counts {
  small = new Uint8Array(0);
  private big = new Map<number, number>();

  get(id: number): number {
    const v = this.small[id] ?? 0;
    return v === BIG ? (this.big.get(id) ?? 0) : v;
  }

  /** Sets a post's count; its count before. */
  set(id: number, value: number): number {
    const before = this.get(id);
    if (value >= BIG) {
      this.small[id] = BIG;
      this.big.set(id, value);
    } else {
      this.small[id] = Math.max(0, value);
      this.big.delete(id);
    }
    return before;
  }

  /** Bytes held: the byte a post (headroom included), and the big counts' map (estimated: an entry each, the numbers small integers). */
  bytes(): number {
    return this.small.byteLength + this.big.size * MAP_ENTRY;
  }

  grow(length: number): void {
    if (length <= this.small.length) return;
    const next = new Uint8Array(length);
    next.set(this.small);
    this.small = next;
  }
}

/** Posts the leaders of a count hold when built; they are built again once changes leave half. */
export const LEADERS = 20_000;

/**
 * The first posts in the order of one count, highest first and the higher id first among equals:
 * always a prefix of that order over every post, so a page by the count is read from the top of
 * it. A post whose count moves is taken out and put back where it now belongs, or left out when
 * that is past the last one (the rest is then still a prefix, one shorter).
 */
export class Leaders {
  ids = new Int32Array(0);
  length = 0;

  constructor(private readonly count: Counts) {}

  /** Whether post `a` (with count `va`) comes before post `b` (with count `vb`). */
  private static before(va: number, a: number, vb: number, b: number): boolean {
    return va > vb || (va === vb && a > b);
  }

  get stale(): boolean {
    return this.length < LEADERS / 2;
  }

  build(maxId: number): void {
    const { count } = this;
    const histogram = new Uint32Array(BIG + 1);
    for (let id = maxId; id > 0; id--) histogram[Math.min(count.get(id), BIG)]++;
    let t = BIG;
    for (let seen = 0; t > 0 && seen + histogram[t] < LEADERS; t--) seen += histogram[t];
    const out: number[] = [];
    for (let id = maxId; id > 0; id--) {
      const v = Math.min(count.get(id), BIG);
      if (v > t || (v === t && out.length < LEADERS * 2)) out.push(id);
    }
    out.sort((a, b) => count.get(b) - count.get(a) || b - a);
    // Room for as many again: posts are taken in without reallocating.
    this.ids = new Int32Array(LEADERS * 2);
    this.length = Math.min(out.length, LEADERS);
    this.ids.set(out.slice(0, this.length));
  }

  /** A post's count moved from `was` (the count now is read). */
  moved(id: number, was: number): void {
    const { ids, count } = this;
    const at = ids.subarray(0, this.length).indexOf(id);
    if (at >= 0) {
      ids.copyWithin(at, at + 1, this.length);
      this.length--;
    } else if (this.length > 0 && !Leaders.before(was, id, count.get(ids[this.length - 1]), ids[this.length - 1])) {
      // It was past the last one, and moving down keeps it there.
      if (count.get(id) <= was) return;
    }
    const now = count.get(id);
    const last = this.length - 1;
    if (last < 0 || !Leaders.before(now, id, count.get(ids[last]), ids[last])) return;
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (Leaders.before(count.get(ids[mid]), ids[mid], now, id)) lo = mid + 1;
      else hi = mid;
    }
    if (this.length === ids.length) this.length--;
    ids.copyWithin(lo + 1, lo, this.length);
    ids[lo] = id;
    this.length++;
  }
}

/**
 * The like, favourite and comment counts of every post, kept per process for the search's
 * columns strategy (search/strategies/columns.ts): a query like `tag likes:>10 order:likes` then tests and
 * orders its candidates in memory instead of reading each one's row. Likes move no data version,
 * so the counts keep their own: the 'counts' counter and the count_changes log beside it
 * (migration 004). Each use reads the counter (one row); when it moved, the posts it names are
 * read again, and posts above the highest id seen are read as they come.
 */
export class PostNumbers implements KeptNumbers {
  private columns: Record<CountField, Counts> = { likes: new Counts(), favs: new Counts(), comments: new Counts() };
  /** Built for a count on first use. */
  private leaders = new Map<CountField, Leaders>();
  private seq = -1;
  private maxId = 0;
  private syncing: Promise<void> | null = null;

  /** Bytes held, by part: the three counts of every post, and the leaders of the counts ordered by so far. */
  memory(): { counts: number; leaders: number } {
    let counts = 0;
    for (const c of Object.values(this.columns)) counts += c.bytes();
    let leaders = 0;
    for (const l of this.leaders.values()) leaders += l.ids.byteLength;
    return { counts, leaders };
  }

  /** Whether every post's counts have been read once (before that, `current` reads them all). */
  get loaded(): boolean {
    return this.seq >= 0;
  }

  /** Brings the counts up to the count log's position `seq` (read here when not given) and to the posts up to `newestId`; returns `seq`. */
  async current(db: Database, newestId: number, given?: number): Promise<number> {
    const seq = given ?? (await counter(db, 'counts'));
    while (this.seq < seq || this.maxId < newestId) {
      this.syncing ??= this.sync(db, newestId).finally(() => {
        this.syncing = null;
      });
      await this.syncing;
    }
    return seq;
  }

  column(field: CountField): (id: number) => number {
    const c = this.columns[field];
    return (id) => c.get(id);
  }

  values(field: CountField): { array: Uint8Array; capped: number } {
    return { array: this.columns[field].small, capped: BIG };
  }

  leading(field: CountField): Int32Array {
    let l = this.leaders.get(field);
    if (!l) this.leaders.set(field, (l = new Leaders(this.columns[field])));
    if (l.stale) l.build(this.maxId);
    return l.ids.subarray(0, l.length);
  }

  private async sync(db: Database, newestId: number): Promise<void> {
    // The counter first: what is read after it is at least as new, and entries past it come next time.
    const seq = await counter(db, 'counts');
    if (this.seq < 0 || seq - this.seq > LOG_KEPT) {
      this.maxId = 0;
      this.leaders.clear();
      await this.readAbove(db, newestId);
    } else {
      if (seq > this.seq) {
        const moved = await db
          .selectFrom('count_changes as c')
          .innerJoin('posts as p', 'p.id', 'c.post_id')
          .select(['p.id', 'p.like_count', 'p.favorite_count', 'p.comment_count'])
          .where('c.seq', '>', this.seq)
          .where('c.seq', '<=', seq)
          .execute();
        this.grow(moved.reduce((m, r) => Math.max(m, r.id), 0));
        // A logged post takes its place among the leaders even with its counts as they were: a post published from the approval queue (below the highest id) is logged so.
        for (const r of moved) this.keep(r.id, Number(r.like_count), Number(r.favorite_count), Number(r.comment_count), true);
      }
      await this.readAbove(db, newestId);
    }
    this.seq = seq;
  }

  /**
   * Posts above the highest id seen up to `top` (the newest the caller's order knows; any above
   * it come on a later call), a range of ids at a time, each range as one text of
   * `id:likes:favs:comments` entries: row objects for a million posts would grow each process's
   * heap by tens of MB that it keeps.
   */
  private async readAbove(db: Database, top: number): Promise<void> {
    this.grow(top);
    const entry = sql`posts.id || ':' || posts.like_count || ':' || posts.favorite_count || ':' || posts.comment_count`;
    for (let from = this.maxId; from < top; from += CHUNK) {
      const { rows } = await sql<{ t: string | null }>`SELECT ${db.joinedText(entry)} AS t FROM posts WHERE id > ${from} AND id <= ${from + CHUNK}`.execute(db);
      const text = rows[0]?.t ?? '';
      const n = [0, 0, 0, 0];
      let field = 0;
      for (let i = 0; i <= text.length; i++) {
        const ch = i < text.length ? text.charCodeAt(i) : 44;
        if (ch >= 48 && ch <= 57) n[field] = n[field] * 10 + (ch - 48);
        else if (ch === 58) field++;
        else {
          if (field === 3) this.keep(n[0], n[1], n[2], n[3]);
          n.fill(0);
          field = 0;
        }
      }
      if (from + CHUNK < top) await new Promise((resolve) => setImmediate(resolve));
    }
    // Nothing above it now: a post that comes later gets a higher id (or is new, and counts 0 until logged).
    this.maxId = Math.max(this.maxId, top);
  }

  private grow(top: number): void {
    for (const c of Object.values(this.columns)) if (top >= c.small.length) c.grow(top + 1 + HEADROOM);
  }

  /** A post's counts as read now; its place among each count's leaders follows them. */
  private keep(id: number, likes: number, favs: number, comments: number, logged = false): void {
    this.keepOne('likes', id, likes, logged);
    this.keepOne('favs', id, favs, logged);
    this.keepOne('comments', id, comments, logged);
  }

  private keepOne(field: CountField, id: number, value: number, logged: boolean): void {
    const was = this.columns[field].set(id, value);
    // A post not seen before enters the leaders even at 0: with every count 0 they hold the newest.
    if (was !== value || logged || id > this.maxId) this.leaders.get(field)?.moved(id, was);
  }
}

/** The counts of `ids` read from their rows, in the order asked (0 for a post that is gone). */
export async function countsByIds(db: Database, ids: number[]): Promise<Record<CountField, number[]>> {
  // One list parameter: the same statement for a page of any length.
  const rows = await db
    .selectFrom('posts')
    .select(['id', 'like_count', 'favorite_count', 'comment_count'])
    .where(db.oneOf(sql.ref('id'), db.listParam(ids)))
    .execute();
  const byId = new Map(rows.map((r) => [r.id, r]));
  const of = (pick: (r: (typeof rows)[number]) => number) => ids.map((id) => (byId.has(id) ? Number(pick(byId.get(id)!)) : 0));
  return { likes: of((r) => r.like_count), favs: of((r) => r.favorite_count), comments: of((r) => r.comment_count) };
}
