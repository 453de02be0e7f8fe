import { sql } from 'kysely';
import { coalescedReads } from '../../db/coalesce.ts';
import type { Db } from '../../db/engine.ts';
import { preparedOnDatabase } from '../../db/prepared.ts';
import { ROW_FIELDS, rowNumber } from './danbooru-post-object.ts';

/** Whether any post has this one as its parent (the index on parent_id answers it). */
const HAS_CHILDREN = sql`CASE WHEN EXISTS (SELECT 1 FROM posts c WHERE c.parent_id = posts.id) THEN 1 ELSE 0 END`;

/** The fields of ROW_FIELDS that are not the post's own columns. */
const COMPUTED = { has_children: HAS_CHILDREN };

/**
 * The rows of posts by id, each one text: the post's fields (ROW_FIELDS, the order
 * danbooru-post-object.ts reads them in), then the data version and the last tag history entry
 * (what TagCategories is kept to: read here, a page needs no statement of its own for it).
 */
const rowsById = preparedOnDatabase((db, p: { ids: unknown }) =>
  db
    .selectFrom('posts')
    .select(
      db
        .fieldsText([
          ...ROW_FIELDS.map((f) => COMPUTED[f as keyof typeof COMPUTED] ?? sql.ref(`posts.${f}`)),
          sql`(SELECT value FROM counters WHERE name = 'version')`,
          sql`(SELECT MAX(id) FROM tag_history)`,
        ])
        .as('t'),
    )
    .where(db.oneOf(sql.ref('posts.id'), p.ids)),
);

/** Posts' rows (their texts) by id, a post missing left out: pages asked at once read theirs in one statement (coalescedReads). */
export const readPostRows = coalescedReads(async (db, ids: number[]) => {
  const found = new Map<number, string>();
  for (const r of await rowsById(db, { ids: db.listParam(ids) })) found.set(rowNumber(r.t, 'id'), r.t);
  return found;
});

/** The name and category of every tag that is not general. */
export async function findCategorisedTags(db: Db) {
  return db.selectFrom('tags').select(['name', 'category']).where('category', '<>', 'general').execute();
}

/** Which of these names are tags' names. */
export async function findExistingTagNames(db: Db, names: string[]): Promise<string[]> {
  return (await db.selectFrom('tags').select('name').where('name', 'in', names).execute()).map((t) => t.name);
}
