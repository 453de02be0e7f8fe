/**
 * What tag names stand for, read where tags are written (posts' tags, bulk edits, aliases) and
 * where a query is compiled (the search): an alias name stands for its target, and while an
 * alias's posts are moved, for the alias's own tag as well.
 */
import { sql } from 'kysely';
import type { Database, Db } from '../engine.ts';
import { prepared, preparedOnDatabase } from '../prepared.ts';

export interface AliasTarget {
  id: number;
  name: string;
  count: number;
}

/** The tags the given names are aliases of (names that are no alias are left out). */
export async function aliasTargets(db: Db, names: string[]): Promise<Map<string, AliasTarget>> {
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
export async function tagsBeingMovedInto(db: Db, ids: number[]): Promise<Map<number, { id: number; count: number }[]>> {
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

const tagsNamed = preparedOnDatabase((db, p: { names: unknown }) =>
  db
    .selectFrom('tags')
    .select(['id', 'name', 'post_count'])
    .where(db.oneOf(sql.ref('name'), p.names)),
);

/** A few names (the usual filters: one tag, a pair, a tag and a search word) as plain parameters, one statement for each number of them. */
const FEW_NAMES = 4;
const tagsNamedFew = Array.from({ length: FEW_NAMES + 1 }, (_, n) =>
  prepared((db, p: Record<string, string>) =>
    db
      .selectFrom('tags')
      .select(['id', 'name', 'post_count'])
      .where(
        'name',
        'in',
        Array.from({ length: n }, (_, i) => p[`n${i}`]),
      ),
  ),
);

/** A tag a name stands for (see tagsByName). */
export interface TagFound {
  id: number;
  count: number;
  moving?: number[];
}

/**
 * The named tags that exist, with their stored post counts; an alias name gives its target tag
 * (what a search means by it). `moving`: while an alias's posts are being moved to its target in
 * the background, the alias name's own tag, whose posts the name stands for too.
 */
export async function tagsByName(db: Database, names: string[]): Promise<Map<string, TagFound>> {
  if (names.length === 0) return new Map();
  const out = new Map<string, TagFound>();
  for (const [name, target] of await aliasTargets(db, names)) out.set(name, { id: target.id, count: target.count });
  const rest = out.size === 0 ? names : names.filter((n) => !out.has(n));
  if (rest.length > 0) {
    // A few names are index seeks, without unpacking a list first.
    const rows =
      rest.length <= FEW_NAMES
        ? await tagsNamedFew[rest.length](db, Object.fromEntries(rest.map((name, i) => [`n${i}`, name])))
        : await tagsNamed(db, { names: db.listParam(rest) });
    for (const r of rows) out.set(r.name, { id: r.id, count: r.post_count });
  }
  const moving = await tagsBeingMovedInto(db, [...new Set([...out.values()].map((t) => t.id))]);
  if (moving.size === 0) return out;
  for (const [name, tag] of out) {
    const more = moving.get(tag.id);
    if (more) out.set(name, { id: tag.id, count: more.reduce((n, t) => n + t.count, tag.count), moving: more.map((t) => t.id) });
  }
  return out;
}
