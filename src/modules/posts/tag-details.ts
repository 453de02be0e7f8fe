import type { Database } from '../../db/engine.ts';
import type { TagCache } from '../tags/tag-cache.ts';
import type { TagCategory } from '../../core/tag-categories.ts';
import { RebuildOnMisses } from '../../core/rebuild-on-misses.ts';

/** A tag of a post's detail: its category and post count. */
export interface TagDetail {
  name: string;
  category: TagCategory;
  postsCount: number;
}

/**
 * The details of the tags `names` as of data version `version` (the one a post's row was read
 * at), or null when they are not at hand for it: the caller reads them from the database.
 */
export type KnownTagDetails = (db: Database, version: number, names: string[]) => Promise<TagDetail[] | null>;

/**
 * KnownTagDetails from the tag list's cache (TagCache: every tag with posts, at one data version),
 * so that a post's detail does not join its tag links to the tags. At another version the caller
 * reads them; once a few details were read at one new version, the cache is read again.
 */
export function tagDetailsFrom(cache: TagCache): KnownTagDetails {
  const rebuilds = new RebuildOnMisses();
  return async (db, version, names) => {
    let tags = cache.latest;
    if (tags.version !== version) {
      if (!(await rebuilds.miss(version, async () => void (await cache.all(db))))) return null;
      tags = cache.latest;
      if (tags.version !== version) return null;
    }
    const entries = tags.named(names);
    return entries?.map((e) => ({ name: e.name, category: e.category as TagCategory, postsCount: e.count })) ?? null;
  };
}
