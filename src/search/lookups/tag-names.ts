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
    const found = await this.read(db, missing, version);
    for (const name of missing) {
      const tag = found.get(name) ?? null;
      this.known.set(name, tag, version);
      if (tag) out.set(name, tag);
    }
    return out;
  }

  /**
   * Names missed by lookups in the same turn of the event loop at the same version are read
   * together, a statement for every READ_AT_ONCE: a batch of new posts is matched against every
   * open event stream's query at once, a thousand lookups that would each be a statement.
   */
  private read(db: Database, names: string[], version: number): Promise<Map<string, TagInfo>> {
    let batch = this.reading;
    if (!batch || batch.version !== version) {
      const next: Reading = { version, names: new Set(), found: null as unknown as Promise<Map<string, TagInfo>> };
      next.found = new Promise((resolve) => setImmediate(resolve)).then(async () => {
        if (this.reading === next) this.reading = null;
        const all = [...next.names];
        const found = new Map<string, TagInfo>();
        for (let at = 0; at < all.length; at += READ_AT_ONCE)
          for (const [name, tag] of await tagsByName(db, all.slice(at, at + READ_AT_ONCE))) found.set(name, tag);
        return found;
      });
      this.reading = batch = next;
    }
    for (const name of names) batch.names.add(name);
    return batch.found;
  }

  private reading: Reading | null = null;
}

interface Reading {
  version: number;
  names: Set<string>;
  found: Promise<Map<string, TagInfo>>;
}

/** Names a statement looks up at most. */
const READ_AT_ONCE = 500;
