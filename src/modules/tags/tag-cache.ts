import type { Database } from '../../db/engine.ts';
import { counter } from '../../db/counters.ts';
import { NameIndex } from './name-index.ts';
import { linkCountsBetween, tagsWithPosts } from './tags.repo.ts';
import { TAG_CATEGORIES } from '../../core/tag-categories.ts';

export interface TagEntry {
  id: number;
  name: string;
  category: string;
  /** Posts with the tag (tags.post_count). */
  count: number;
  createdAt: number;
  /** Position in its snapshot's entries: its name's number in the snapshot's name index. */
  slot: number;
}

/**
 * Every tag that has posts, and per-tag post counts over the time windows, held in memory and keyed
 * to the data: the `version` counter moves whenever a post is added, deleted or edited (by any
 * instance), and window counts are also keyed to the minute (windows roll with time). Any
 * page, limit, search or sort of the tag list is then answered from the same few arrays.
 */
/** How far (minutes) a kept window may be rolled forward instead of counted again. */
const ROLL_MINUTES = 24 * 60;

export class TagCache {
  private snapshot = new TagSnapshot(-1, []);
  /** Window counts by the minute their window starts in. */
  private windows = new Map<number, Map<number, number>>();

  /** The snapshot last read, whatever the data's version is now (the caller compares versions). */
  get latest(): TagSnapshot {
    return this.snapshot;
  }

  /** All tags with posts, as of the data's current version (checked on every call). */
  async all(db: Database): Promise<TagSnapshot> {
    const version = await counter(db, 'version');
    if (version !== this.snapshot.version) {
      const rows = await tagsWithPosts(db);
      this.snapshot = new TagSnapshot(
        version,
        rows.map((r, slot) => ({ id: r.id, name: r.name, category: oneCopy(r.category), count: r.post_count, createdAt: r.created_at, slot })),
      );
      this.windows.clear();
    }
    return this.snapshot;
  }

  /** Posts per tag created at or after `since` (call all() first, so the version is fresh). */
  async since(db: Database, since: number): Promise<Map<number, number>> {
    // Keyed to the minute the window starts in: a rolling window moves on each minute, a fixed one
    // (since midnight) keeps its key all day until the data changes.
    const key = Math.floor(since / 60_000);
    let counts = this.windows.get(key);
    if (counts) return counts;
    // The data is unchanged since every kept window was counted (a new version clears them), so a
    // window that started a little earlier only loses the links in between: a short index range
    // instead of the whole window again.
    const earlier = [...this.windows.keys()].filter((k) => k < key && key - k <= ROLL_MINUTES).sort((a, b) => b - a)[0];
    if (earlier !== undefined) {
      counts = this.windows.get(earlier)!;
      this.windows.delete(earlier);
      for (const r of await linkCountsBetween(db, earlier * 60_000, key * 60_000)) {
        const left = (counts.get(r.tag_id) ?? 0) - Number(r.n);
        if (left > 0) counts.set(r.tag_id, left);
        else counts.delete(r.tag_id);
      }
    } else {
      counts = new Map((await linkCountsBetween(db, key * 60_000)).map((r) => [r.tag_id, Number(r.n)]));
    }
    if (this.windows.size >= 16) this.windows.delete(this.windows.keys().next().value!);
    this.windows.set(key, counts);
    return counts;
  }
}

/**
 * The tags as of one data version and what is derived from them. A request keeps the snapshot it
 * started with, so a list it derives is never kept for a later version (whose slots differ).
 */
export class TagSnapshot {
  private readonly memos = new Map<string, unknown>();
  private index?: NameIndex;
  private byName?: Map<string, TagEntry>;

  constructor(
    readonly version: number,
    readonly entries: TagEntry[],
  ) {}

  /** The name index over `entries` (built on first use: only searches need it). */
  names(): NameIndex {
    return (this.index ??= new NameIndex(this.entries.map((e) => e.name)));
  }

  /** The entries of `names`, in their order; null when one is not a tag with posts. */
  named(names: readonly string[]): TagEntry[] | null {
    const byName = (this.byName ??= new Map(this.entries.map((e) => [e.name, e])));
    const out: TagEntry[] = [];
    for (const name of names) {
      const entry = byName.get(name);
      if (!entry) return null;
      out.push(entry);
    }
    return out;
  }

  /**
   * A value derived from the cached data (a sorted list), kept until the data changes; with `now`
   * (a value that depends on time windows), also only until the minute changes.
   */
  memo<T>(key: string, make: () => T, now?: number): T {
    const minute = now === undefined ? -1 : Math.floor(now / 60_000);
    const full = `${minute}|${key}`;
    if (!this.memos.has(full)) {
      for (const k of this.memos.keys()) if (!k.startsWith('-1|') && !k.startsWith(`${minute}|`)) this.memos.delete(k);
      this.memos.set(full, make());
    }
    return this.memos.get(full) as T;
  }
}

/**
 * The category as the one constant text of its name: each row read brings a copy of its own, and
 * 50,000 copies of 'general' are over a megabyte in every process.
 */
function oneCopy(category: string): string {
  return TAG_CATEGORIES.find((c) => c === category) ?? category;
}
