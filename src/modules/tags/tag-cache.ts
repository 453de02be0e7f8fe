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
  private version = -1;
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
      this.version = version;
    }
    return this.entries;
  }

  /** Posts per tag created at or after `since` (call all() first, so the version is fresh). */
  async since(db: Kysely<DB>, since: number, now: number): Promise<Map<number, number>> {
    const key = `${Math.floor(now / 60_000)}:${now - since}`;
    let counts = this.windows.get(key);
    if (!counts) {
      const rows = await db
        .selectFrom('post_tags')
        .select(['tag_id', sql<number>`count(*)`.as('n')])
        .where('created_at', '>=', since)
        .groupBy('tag_id')
        .execute();
      counts = new Map(rows.map((r) => [r.tag_id, Number(r.n)]));
      for (const k of this.windows.keys()) if (!k.startsWith(`${Math.floor(now / 60_000)}:`)) this.windows.delete(k);
      this.windows.set(key, counts);
    }
    return counts;
  }
}
