import { splitCategory } from '../../core/tag-categories.ts';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/types.ts';
import type { Db, Tx } from '../../db/engine.ts';

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

/** The first alias name (alphabetical) of the tag named `name`: undefined when it has none. */
export async function firstAliasOfTagNamed(db: Db, name: string) {
  return db
    .selectFrom('tag_aliases')
    .innerJoin('tags', 'tags.id', 'tag_aliases.tag_id')
    .select('tag_aliases.from_name')
    .where('tags.name', '=', name)
    .orderBy('tag_aliases.from_name')
    .executeTakeFirst();
}

/** Makes `from` an alias of the tag `tagId`. */
export async function insertAlias(trx: Tx, alias: { from: string; tagId: number; creatorId: number | null; createdAt: number }): Promise<void> {
  await trx
    .insertInto('tag_aliases')
    .values({ from_name: alias.from, tag_id: alias.tagId, creator_id: alias.creatorId, created_at: alias.createdAt })
    .execute();
}

/** One page of aliases, newest first, with their targets and creators, and the number of aliases. */
export async function aliasPage(db: Db, limit: number, offset: number) {
  const [rows, total] = await Promise.all([
    db
      .selectFrom('tag_aliases')
      .innerJoin('tags', 'tags.id', 'tag_aliases.tag_id')
      .leftJoin('users', 'users.id', 'tag_aliases.creator_id')
      .select(['tag_aliases.from_name', 'tags.name', 'tag_aliases.created_at', 'users.username'])
      .orderBy('tag_aliases.created_at', 'desc')
      .orderBy('tag_aliases.from_name')
      .limit(limit)
      .offset(offset)
      .execute(),
    db
      .selectFrom('tag_aliases')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(total.n) };
}

/** Deletes the alias `from`; returns how many rows went (0 or 1). */
export async function deleteAliasNamed(trx: Tx, from: string): Promise<number> {
  const gone = await trx.deleteFrom('tag_aliases').where('from_name', '=', from).executeTakeFirst();
  return Number(gone.numDeletedRows);
}
