import type { Kysely } from 'kysely';
import type { DB } from '../../db/types.ts';

export interface AliasTarget {
  id: number;
  name: string;
  count: number;
}

/** The tags the given names are aliases of (names that are no alias are left out). */
export async function aliasTargets(db: Kysely<DB>, names: string[]): Promise<Map<string, AliasTarget>> {
  if (names.length === 0) return new Map();
  const rows = await db
    .selectFrom('tag_aliases')
    .innerJoin('tags', 'tags.id', 'tag_aliases.tag_id')
    .select(['tag_aliases.from_name', 'tags.id', 'tags.name', 'tags.post_count'])
    .where('tag_aliases.from_name', 'in', names)
    .execute();
  return new Map(rows.map((r) => [r.from_name, { id: r.id, name: r.name, count: r.post_count }]));
}

export interface TagRecord {
  id: number;
  name: string;
  category: string;
  description: string;
  post_count: number;
  created_at: number;
}

const TAG_COLUMNS = ['tags.id', 'tags.name', 'tags.category', 'tags.description', 'tags.post_count', 'tags.created_at'] as const;

/** The tag of a name: an alias's target, else the tag of that name (undefined when neither). */
export async function tagOfName(db: Kysely<DB>, name: string): Promise<TagRecord | undefined> {
  const aliased = await db
    .selectFrom('tag_aliases')
    .innerJoin('tags', 'tags.id', 'tag_aliases.tag_id')
    .select(TAG_COLUMNS)
    .where('tag_aliases.from_name', '=', name)
    .executeTakeFirst();
  return aliased ?? (await db.selectFrom('tags').select(TAG_COLUMNS).where('tags.name', '=', name).executeTakeFirst());
}

/** The alias names of a tag, alphabetical. */
export async function aliasesOf(db: Kysely<DB>, tagId: number): Promise<string[]> {
  const rows = await db.selectFrom('tag_aliases').select('from_name').where('tag_id', '=', tagId).orderBy('from_name').execute();
  return rows.map((r) => r.from_name);
}
