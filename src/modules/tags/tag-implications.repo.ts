import type { Kysely } from 'kysely';
import type { DB } from '../../db/types.ts';
import type { Db, Tx } from '../../db/engine.ts';

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

/** The implication `fromId` -> `toId` (its from_id), or undefined when there is none. */
export async function findImplication(db: Db, fromId: number, toId: number) {
  return db.selectFrom('tag_implications').select('from_id').where('from_id', '=', fromId).where('to_id', '=', toId).executeTakeFirst();
}

/** Whether some post tagged `fromId` lacks `toId`: then the implication needs a backfill. */
export async function postsToBackfill(db: Db, fromId: number, toId: number): Promise<boolean> {
  const row = await db
    .selectFrom('post_tags as a')
    .select('a.post_id')
    .where('a.tag_id', '=', fromId)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('post_tags as b').select('b.post_id').whereRef('b.post_id', '=', 'a.post_id').where('b.tag_id', '=', toId))),
    )
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Makes `fromId` imply `toId`. */
export async function insertImplication(trx: Tx, implication: { fromId: number; toId: number; creatorId: number | null; createdAt: number }): Promise<void> {
  await trx
    .insertInto('tag_implications')
    .values({ from_id: implication.fromId, to_id: implication.toId, creator_id: implication.creatorId, created_at: implication.createdAt })
    .execute();
}

/**
 * One page of implications, newest first, by name with their creators, and their number;
 * optionally those with `tagId` on either side, and those from `fromId`.
 */
export async function implicationPage(db: Db, filter: { tagId?: number; fromId?: number }, limit: number, offset: number) {
  const { tagId, fromId } = filter;
  const base = db
    .selectFrom('tag_implications')
    .$if(tagId !== undefined, (qb) => qb.where((eb) => eb.or([eb('tag_implications.from_id', '=', tagId!), eb('tag_implications.to_id', '=', tagId!)])))
    .$if(fromId !== undefined, (qb) => qb.where('tag_implications.from_id', '=', fromId!));
  const [rows, total] = await Promise.all([
    base
      .innerJoin('tags as f', 'f.id', 'tag_implications.from_id')
      .innerJoin('tags as t', 't.id', 'tag_implications.to_id')
      .leftJoin('users', 'users.id', 'tag_implications.creator_id')
      .select(['f.name as from', 't.name as to', 'tag_implications.created_at', 'users.username'])
      .orderBy('tag_implications.created_at', 'desc')
      .orderBy('f.name')
      .orderBy('t.name')
      .limit(limit)
      .offset(offset)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(total.n) };
}

/** Deletes the implication `fromId` -> `toId`; returns how many rows went (0 or 1). */
export async function deleteImplicationPair(trx: Tx, fromId: number, toId: number): Promise<number> {
  const gone = await trx.deleteFrom('tag_implications').where('from_id', '=', fromId).where('to_id', '=', toId).executeTakeFirst();
  return Number(gone.numDeletedRows);
}
