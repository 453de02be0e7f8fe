import type { Kysely } from 'kysely';
import type { DB } from '../../db/types.ts';

export interface TagRef {
  id: number;
  name: string;
}

/**
 * The tags that the given tags imply, transitively (one recursive query: a write pays one round trip
 * however deep the implications go). A given tag is in the answer only when another one implies it.
 */
export async function impliedTags(db: Kysely<DB>, ids: number[]): Promise<TagRef[]> {
  if (ids.length === 0) return [];
  // The tags by IN, not a join: joined, SQLite's planner scanned all the tags against the few
  // implied ones (a millisecond a write at 50,000 tags, most of a backfill's time a post).
  return db
    .withRecursive('implied(id)', (qb) =>
      qb
        .selectFrom('tag_implications')
        .select('to_id as id')
        .where('from_id', 'in', ids)
        .union(qb.selectFrom('tag_implications').innerJoin('implied', 'implied.id', 'tag_implications.from_id').select('tag_implications.to_id as id')),
    )
    .selectFrom('tags')
    .select(['tags.id', 'tags.name'])
    .where('tags.id', 'in', (eb) => eb.selectFrom('implied').select('implied.id'))
    .execute();
}

/**
 * A path of implications from `start` to `goal` as tag names (`start`, ..., `goal`), or null when
 * `start` does not imply `goal`: what a cycle check names. Breadth first, one query a level.
 */
export async function implicationPath(db: Kysely<DB>, start: TagRef, goal: number): Promise<string[] | null> {
  const came = new Map<number, TagRef & { from: number | null }>([[start.id, { ...start, from: null }]]);
  let frontier = [start.id];
  while (frontier.length > 0) {
    const edges = await db
      .selectFrom('tag_implications')
      .innerJoin('tags', 'tags.id', 'tag_implications.to_id')
      .select(['tag_implications.from_id', 'tags.id', 'tags.name'])
      .where('tag_implications.from_id', 'in', frontier)
      .orderBy('tags.name')
      .execute();
    frontier = [];
    for (const e of edges) {
      if (came.has(e.id)) continue;
      came.set(e.id, { id: e.id, name: e.name, from: e.from_id });
      frontier.push(e.id);
    }
    if (came.has(goal)) {
      const path: string[] = [];
      for (let at = came.get(goal); at; at = at.from === null ? undefined : came.get(at.from)) path.unshift(at.name);
      return path;
    }
  }
  return null;
}

/** The tags a tag implies and the tags that imply it, directly, by name (alphabetical). */
export async function tagImplications(db: Kysely<DB>, tagId: number): Promise<{ implies: string[]; impliedBy: string[] }> {
  const [implies, impliedBy] = await Promise.all([
    db
      .selectFrom('tag_implications')
      .innerJoin('tags', 'tags.id', 'tag_implications.to_id')
      .select('tags.name')
      .where('tag_implications.from_id', '=', tagId)
      .orderBy('tags.name')
      .execute(),
    db
      .selectFrom('tag_implications')
      .innerJoin('tags', 'tags.id', 'tag_implications.from_id')
      .select('tags.name')
      .where('tag_implications.to_id', '=', tagId)
      .orderBy('tags.name')
      .execute(),
  ]);
  return { implies: implies.map((r) => r.name), impliedBy: impliedBy.map((r) => r.name) };
}

/** One implication of `to` by one of `by` (ids), by name: what a refused removal names. */
export async function implicationOnto(db: Kysely<DB>, to: number[], by: number[]): Promise<{ from: string; to: string } | undefined> {
  if (to.length === 0 || by.length === 0) return undefined;
  return db
    .selectFrom('tag_implications')
    .innerJoin('tags as f', 'f.id', 'tag_implications.from_id')
    .innerJoin('tags as t', 't.id', 'tag_implications.to_id')
    .select(['f.name as from', 't.name as to'])
    .where('tag_implications.to_id', 'in', to)
    .where('tag_implications.from_id', 'in', by)
    .orderBy('t.name')
    .orderBy('f.name')
    .executeTakeFirst();
}

/** One implication a tag is on either side of, by name (none: undefined). */
export async function anyImplicationOf(db: Kysely<DB>, tagId: number): Promise<{ from: string; to: string } | undefined> {
  return db
    .selectFrom('tag_implications')
    .innerJoin('tags as f', 'f.id', 'tag_implications.from_id')
    .innerJoin('tags as t', 't.id', 'tag_implications.to_id')
    .select(['f.name as from', 't.name as to'])
    .where((eb) => eb.or([eb('tag_implications.from_id', '=', tagId), eb('tag_implications.to_id', '=', tagId)]))
    .orderBy('f.name')
    .orderBy('t.name')
    .executeTakeFirst();
}
