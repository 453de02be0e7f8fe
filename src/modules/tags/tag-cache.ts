import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/types.ts';

export interface TagEntry {
  id: number;
  name: string;
  /** Posts with the tag (tags.post_count). */
  count: number;
  createdAt: number;
}

/**
 * Every tag that has posts, and per-tag post counts over the time windows, held in memory and keyed
 * to the data: the `version` counter moves whenever a post is added, deleted or edited (by any
 * instance), and window counts are also keyed to the minute (windows roll with time). Any
 * page, limit, search or sort of the tag list is then answered from the same few arrays.
 */
export class TagCache {
  constructor(private readonly sqlite: boolean) {}

  private version = -1;
  private memos = new Map<string, unknown>();
  private entries: TagEntry[] = [];
  private windows = new Map<string, Map<number, number>>();

  private async currentVersion(db: Kysely<DB>): Promise<number> {
    const row = await db.selectFrom('counters').select('value').where('name', '=', 'version').executeTakeFirst();
    return Number(row?.value ?? 0);
  }

  /** All tags with posts, as of the data's current version. */
  async all(db: Kysely<DB>): Promise<TagEntry[]> {
    const version = await this.currentVersion(db);
    if (version !== this.version) {
      const rows = await db.selectFrom('tags').select(['id', 'name', 'post_count', 'created_at']).where('post_count', '>', 0).execute();
      this.entries = rows.map((r) => ({ id: r.id, name: r.name, count: r.post_count, createdAt: r.created_at }));
      this.windows.clear();
      this.memos.clear();
      this.version = version;
    }
    return this.entries;
  }

  /** Posts per tag created at or after `since` (call all() first, so the version is fresh). */
  async since(db: Kysely<DB>, since: number): Promise<Map<number, number>> {
    // Keyed to the minute the window starts in: a rolling window moves on each minute, a fixed one
    // (since midnight) keeps its key all day until the data changes.
    const key = String(Math.floor(since / 60_000));
    let counts = this.windows.get(key);
    if (!counts) {
      // The window is a range of the (created_at, tag_id) index; left alone, SQLite walks the tag
      // index instead to save a sort, which reads every link ever made.
      const rows = (await sql<{ tag_id: number; n: number }>`SELECT tag_id, count(*) AS n FROM post_tags ${sql.raw(this.sqlite ? 'INDEXED BY post_tags_created ' : '')}WHERE created_at >= ${since} GROUP BY tag_id`.execute(db)).rows;
      counts = new Map(rows.map((r) => [r.tag_id, Number(r.n)]));
      if (this.windows.size >= 16) this.windows.delete(this.windows.keys().next().value!);
      this.windows.set(key, counts);
    }
    return counts;
  }

  /** A value derived from the cached data (a sorted list), kept until the data or the minute changes. */
  memo<T>(key: string, now: number, make: () => T): T {
    const full = `${Math.floor(now / 60_000)}|${key}`;
    if (!this.memos.has(full)) {
      for (const k of this.memos.keys()) if (!k.startsWith(`${Math.floor(now / 60_000)}|`)) this.memos.delete(k);
      this.memos.set(full, make());
    }
    return this.memos.get(full) as T;
  }
}
