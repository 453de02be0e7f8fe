import type { Kysely } from 'kysely';
import type { DB } from '../../db/types.ts';
import { counter } from '../../db/counters.ts';
import { hasStoredCount, type PostFilter } from './posts.query.ts';
import { VersionedMap } from './versioned-map.ts';

export interface Count {
  total: number;
  estimated: boolean;
}

/**
 * Totals of filters that have no stored counter (two tags, a search term, a tag and a rating...),
 * which take a sample or a capped count to work out, kept per process until the posts change:
 * every upload, edit and delete moves the data version (the `version` counter, in the same
 * transaction), and each use reads it, so no worker answers with a total older than the data
 * another worker wrote. A total does not depend on the sort. Filters by likes are never kept
 * (likes do not move the version). At most `max` totals; the least recently used goes first.
 */
export class CountCache {
  private readonly totals: VersionedMap<Count>;

  constructor(max = 5_000) {
    this.totals = new VersionedMap(max);
  }

  /** The key of a filter whose total is worth keeping, or null. */
  static key(f: PostFilter): string | null {
    if (f.minLikes !== undefined || hasStoredCount(f)) return null;
    const tags = f.tags.map((t) => t.id).sort((a, b) => a - b);
    const before = f.before ? [f.before.createdAt, f.before.id] : null;
    return JSON.stringify([tags, f.terms.map((t) => t.text), f.uploaderId ?? null, f.rating ?? null, f.from ?? null, f.to ?? null, before]);
  }

  /**
   * The kept total for `key`, if the data has not changed since it was kept, and `keep` to store
   * one worked out now: it is kept only if no other request has seen newer data meanwhile; with
   * the data version (read now unless given).
   */
  async lookup(db: Kysely<DB>, key: string, at?: number): Promise<{ count?: Count; keep(count: Count): void; version: number }> {
    const version = at ?? (await counter(db, 'version'));
    return { count: this.totals.get(key, version), keep: (count: Count) => this.totals.set(key, count, version), version };
  }
}
