import { sql } from 'kysely';
import type { Database } from '../../db/engine.ts';
import { coalescedRead } from '../../db/coalesce.ts';

/** What moves when a category may have: the data version and the last tag history entry (one read for the pages asked at once). */
const changeKey = coalescedRead(async (db) => {
  const { rows } = await sql<{
    version: unknown;
    changed: unknown;
  }>`SELECT (SELECT value FROM counters WHERE name = 'version') AS version, (SELECT MAX(id) FROM tag_history) AS changed`.execute(db);
  return `${rows[0]?.version}/${rows[0]?.changed}`;
});

/**
 * The category of every tag that is not general, kept in memory: few tags are artists,
 * characters and the like, so a page of 200 posts (thousands of tag names) needs no lookup. Kept
 * to the data version and the last tag history entry (a category change writes one).
 */
export class TagCategories {
  private key = '';
  private byName = new Map<string, string>();

  async current(db: Database): Promise<Map<string, string>> {
    const key = await changeKey(db);
    if (key !== this.key) {
      const found = await db.selectFrom('tags').select(['name', 'category']).where('category', '<>', 'general').execute();
      this.byName = new Map(found.map((t) => [t.name, t.category]));
      this.key = key;
    }
    return this.byName;
  }
}
