import { type Expression, type SqlBool, sql } from 'kysely';
import type { Database, Db } from '../../db/engine.ts';

/** The ids of the tags these alias names stand for: a search by an old name finds the tag it became. */
const aliasedIds = (db: Db, match: (from: any) => any) => db.selectFrom('tag_aliases').select('tag_aliases.tag_id').where(match);

const ORDERS = { count: 'tags.post_count', date: 'tags.created_at', name: 'tags.name' } as const;

export interface TagSearch {
  /** Names, or alias names, matching this glob. */
  glob?: string;
  /** Names, or alias names, that are one of these. */
  names?: string[];
  categories?: string[];
  /** Only tags on some post. */
  hideEmpty: boolean;
  /** Danbooru's order word: count (else), date or name. */
  order?: string;
  limit: number;
  offset: number;
}

/** A page of tags by the search's order (name ascending, the others most used or newest first), then id descending. */
export async function findTags(db: Database, s: TagSearch) {
  let query = db.selectFrom('tags').select(['tags.id', 'tags.name', 'tags.post_count', 'tags.category', 'tags.created_at']);
  const glob = s.glob;
  if (glob) {
    query = query.where((eb) =>
      eb.or([
        db.globInsensitive(eb.ref('tags.name'), glob),
        eb(
          'tags.id',
          'in',
          aliasedIds(db, (a) => db.globInsensitive(a.ref('tag_aliases.from_name'), glob)),
        ),
      ]),
    );
  }
  const wanted = s.names;
  if (wanted !== undefined) {
    query = query.where((eb) =>
      eb.or([
        eb('tags.name', 'in', wanted),
        eb(
          'tags.id',
          'in',
          aliasedIds(db, (a) => a('tag_aliases.from_name', 'in', wanted)),
        ),
      ]),
    );
  }
  if (s.categories !== undefined) query = query.where('tags.category', 'in', s.categories);
  if (s.hideEmpty) query = query.where('tags.post_count', '>', 0);
  const order = ORDERS[s.order as keyof typeof ORDERS] ?? ORDERS.count;
  return query
    .orderBy(order, order === 'tags.name' ? 'asc' : 'desc')
    .orderBy('tags.id', 'desc')
    .limit(s.limit)
    .offset(s.offset)
    .execute();
}

const COLUMNS = ['tags.name', 'tags.category', 'tags.post_count'] as const;

/** Up to `limit` tags on some post whose names match the glob, most used first, then by name. */
export async function findTagsMatching(db: Database, pattern: string, limit: number) {
  return db
    .selectFrom('tags')
    .select(COLUMNS)
    .where((eb) => db.globInsensitive(eb.ref('tags.name'), pattern))
    .where('tags.post_count', '>', 0)
    .orderBy('tags.post_count', 'desc')
    .orderBy('tags.name')
    .limit(limit)
    .execute();
}

/** Up to `limit` alias names matching the glob, each with the tag (on some post) it stands for, most used first, then by alias name. */
export async function findAliasesMatching(db: Database, pattern: string, limit: number) {
  return db
    .selectFrom('tag_aliases')
    .innerJoin('tags', 'tags.id', 'tag_aliases.tag_id')
    .select([...COLUMNS, 'tag_aliases.from_name'])
    .where((eb) => db.globInsensitive(eb.ref('tag_aliases.from_name'), pattern))
    .where('tags.post_count', '>', 0)
    .orderBy('tags.post_count', 'desc')
    .orderBy('tag_aliases.from_name')
    .limit(limit)
    .execute();
}

/** Danbooru's search[...] over a relation's two names. */
export interface RelationSearch {
  antecedentNames: string[];
  consequentNames: string[];
  /** Either name matching this glob. */
  glob?: string;
}

/** The conditions of the search over the two names (none: every relation). */
function conditions(db: Database, s: RelationSearch, antecedent: Expression<string>, consequent: Expression<string>): Expression<SqlBool>[] {
  const out: Expression<SqlBool>[] = [];
  for (const [names, side] of [
    [s.antecedentNames, antecedent],
    [s.consequentNames, consequent],
  ] as const) {
    if (names.length > 0) out.push(sql<SqlBool>`${side} in (${sql.join(names)})`);
  }
  if (s.glob) out.push(sql<SqlBool>`(${db.globInsensitive(antecedent, s.glob)} or ${db.globInsensitive(consequent, s.glob)})`);
  return out;
}

/** A page of aliases (old name, the tag's name now), newest first, then by old name. */
export async function findAliases(db: Database, s: RelationSearch, limit: number, offset: number) {
  const where = conditions(db, s, sql.ref('tag_aliases.from_name'), sql.ref('tags.name'));
  let query = db
    .selectFrom('tag_aliases')
    .innerJoin('tags', 'tags.id', 'tag_aliases.tag_id')
    .select(['tag_aliases.from_name as antecedent', 'tags.name as consequent', 'tag_aliases.tag_id', 'tag_aliases.creator_id', 'tag_aliases.created_at']);
  if (where.length > 0) query = query.where((eb) => eb.and(where));
  return query.orderBy('tag_aliases.created_at', 'desc').orderBy('tag_aliases.from_name').limit(limit).offset(offset).execute();
}

/** A page of implications with their two tags' names, newest first, then by the two ids. */
export async function findImplications(db: Database, s: RelationSearch, limit: number, offset: number) {
  const where = conditions(db, s, sql.ref('f.name'), sql.ref('t.name'));
  let query = db
    .selectFrom('tag_implications')
    .innerJoin('tags as f', 'f.id', 'tag_implications.from_id')
    .innerJoin('tags as t', 't.id', 'tag_implications.to_id')
    .select([
      'f.name as antecedent',
      't.name as consequent',
      'tag_implications.from_id',
      'tag_implications.to_id',
      'tag_implications.creator_id',
      'tag_implications.created_at',
    ]);
  if (where.length > 0) query = query.where((eb) => eb.and(where));
  return query
    .orderBy('tag_implications.created_at', 'desc')
    .orderBy('tag_implications.from_id')
    .orderBy('tag_implications.to_id')
    .limit(limit)
    .offset(offset)
    .execute();
}
