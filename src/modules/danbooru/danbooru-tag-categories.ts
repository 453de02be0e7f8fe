import type { Db } from '../../db/engine.ts';
import { findCategorisedTags } from './danbooru-posts.repo.ts';

/**
 * The category of every tag that is not general, kept in memory: few tags are artists,
 * characters and the like, so a page of 200 posts (thousands of tag names) needs no lookup. Kept
 * to what moves when a category may have, read with the page's rows (danbooru-posts.ts): the data
 * version and the last tag history entry (a category change writes one). Read again when it moves.
 */
export class TagCategories {
  private key = '';
  private byName = new Map<string, string>();

  async current(db: Db, key: string): Promise<Map<string, string>> {
    if (key !== this.key) {
      const found = await findCategorisedTags(db);
      this.byName = new Map(found.map((t) => [t.name, t.category]));
      this.key = key;
    }
    return this.byName;
  }
}
