import { splitCategory } from './tag-categories.ts';
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

/**
 * For each of these tags, the tags of its alias names that still hold posts: those an alias-retag
 * job has not moved yet (posts.retag.ts). A search for the tag must find them too.
 */
export async function tagsBeingMovedInto(db: Kysely<DB>, ids: number[]): Promise<Map<number, { id: number; count: number }[]>> {
  const out = new Map<number, { id: number; count: number }[]>();
  if (ids.length === 0) return out;
  const rows = await db
    .selectFrom('tag_aliases')
    .innerJoin('tags', 'tags.name', 'tag_aliases.from_name')
    .select(['tag_aliases.tag_id as into', 'tags.id', 'tags.post_count'])
    .where('tag_aliases.tag_id', 'in', ids)
    .where('tags.post_count', '>', 0)
    .execute();
  for (const r of rows) out.set(r.into, [...(out.get(r.into) ?? []), { id: r.id, count: r.post_count }]);
  return out;
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
  const found = await tagOrAliasNamed(db, name);
  if (found) return found;
  // A category prefix as written while tagging (artist:somebody) names the tag after it.
  const { name: rest, category } = splitCategory(name);
  return category && rest ? tagOrAliasNamed(db, rest) : undefined;
}

async function tagOrAliasNamed(db: Kysely<DB>, name: string): Promise<TagRecord | undefined> {
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
