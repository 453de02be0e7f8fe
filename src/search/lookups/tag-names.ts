import type { Database } from '../../db/engine.ts';
import { type TagFound, tagsByName } from '../../db/queries/tag-names.ts';
import { VersionedMap } from '../../core/versioned-map.ts';
import { arrayBytes, objectBytes } from '../../core/heap-estimate.ts';

export type TagInfo = TagFound;
/** The named tags that exist, with their post counts. */
export type TagLookup = (names: string[]) => Promise<Map<string, TagInfo>>;

/**
 * Tag names a post list filtered by (tags, search terms) and what they stood for: the tag's id
 * and post count (an alias's target's), or no tag. Kept per process at one data version (a tag's
 * posts, and so its count, change only with the posts; a rename or an alias moves the version
 * too), which saves a lookup in each filtered list request.
 */
export class TagNames {
  private readonly known = new VersionedMap<TagInfo | null>(20_000);

  /** Bytes held, estimated: each name known, and its tag (an object of three fields, and the ids of an alias's move). */
  bytes(): number {
    return this.known.bytes((tag) => (tag ? objectBytes(3) + (tag.moving ? arrayBytes(tag.moving.length) : 0) : 0));
  }

  async lookup(db: Database, names: string[], dataVersion: () => Promise<number>): Promise<Map<string, TagInfo>> {
    const out = new Map<string, TagInfo>();
    if (names.length === 0) return out;
    const version = await dataVersion();
    const missing: string[] = [];
    for (const name of names) {
      const tag = this.known.get(name, version);
      if (tag === undefined) missing.push(name);
      else if (tag) out.set(name, tag);
    }
    if (missing.length === 0) return out;
    const found = await tagsByName(db, missing);
    for (const name of missing) {
      const tag = found.get(name) ?? null;
      this.known.set(name, tag, version);
      if (tag) out.set(name, tag);
    }
    return out;
  }
}
