/**
 * The driven strategy: a query that ANDs sets (tags, fav:, user:, pool:) with conditions on the
 * post's own columns (rating, likes, dates, ...) or any order. The sets are evaluated in memory
 * (sets.ts) into the candidate posts; SQL then reads only those rows, tests the rest and sorts
 * them. When the candidates are many, reading them one by one costs more than walking posts in
 * order, and the SQL strategy answers instead.
 */
import { sql } from 'kysely';
import type { Database } from '../../db/engine.ts';
import type { Compiled, Expr } from '../expr.ts';
import { pageOf, Scratch, sizeOf } from '../sets/post-set.ts';
import { current } from '../sets/read-sets.ts';
import { evaluateSets, setsAlone } from '../sets/evaluate.ts';
import type { SetIndexes } from '../sets/indexes.ts';
import { orderBy, type SearchPage, where } from './sql.ts';

/** Candidates read by id at most; past this the SQL strategy walks posts in order instead. */
export const MAX_CANDIDATES = 20_000;

/** The query's conjuncts that are sets with something to select (not a NOT alone), and the rest. */
export function split(e: Expr): { sets: Expr[]; rest: Expr[] } {
  const parts = e.kind === 'and' ? e.exprs : [e];
  const sets = parts.filter((x) => setsAlone(x) && x.kind !== 'not' && x.kind !== 'all');
  // A NOT of sets narrows the candidates in memory too, once there are some.
  const narrowing = sets.length ? parts.filter((x) => x.kind === 'not' && setsAlone(x)) : [];
  return { sets: [...sets, ...narrowing], rest: parts.filter((x) => !sets.includes(x) && !narrowing.includes(x)) };
}

/** Whether this strategy can answer the query: some of it is sets that select posts. */
export function drivenServe(c: Compiled): boolean {
  return split(c.expr).sets.some((x) => x.kind !== 'not');
}

/** A page and the exact total, or null when the candidates are more than `maxCandidates`. */
export async function drivenSearch(
  db: Database,
  c: Compiled,
  offset: number,
  limit: number,
  indexes: SetIndexes,
  budgetMs: number,
  maxCandidates = MAX_CANDIDATES,
): Promise<SearchPage | null> {
  const follows = await current(db, indexes);
  const { sets, rest } = split(c.expr);
  if (!sets.some((x) => x.kind !== 'not')) return null;
  const started = Date.now();
  const scratch = new Scratch();
  let ids: number[];
  try {
    const candidates = await evaluateSets(db, sets.length === 1 ? sets[0] : { kind: 'and', exprs: sets }, indexes, budgetMs, scratch.take, follows);
    const count = sizeOf(candidates);
    if (count > maxCandidates) return null;
    ids = pageOf(candidates, 'desc', 0, count);
  } finally {
    scratch.release();
  }
  if (ids.length === 0) return { ids: [], total: 0, estimated: false };
  return db.withinBudget(Math.max(1, budgetMs - (Date.now() - started)), async (q, guard) => {
    const j = db.idRows(db.listParam(ids));
    const cond = where(db, { kind: 'and', exprs: rest }, c.before, guard);
    const from = sql`${j.from} JOIN posts ON posts.id = ${j.id}`;
    // The total beside the page, in the same pass over the candidates (a window over every match).
    const page = await sql<{ id: number; n: number }>`SELECT posts.id, count(*) OVER () AS n FROM ${from} WHERE ${cond}
      ORDER BY ${orderBy(c.order, c.seed)} LIMIT ${limit} OFFSET ${offset}`.execute(q);
    const total = page.rows.length
      ? Number(page.rows[0].n)
      : Number((await sql<{ n: number }>`SELECT count(*) AS n FROM ${from} WHERE ${cond}`.execute(q)).rows[0]?.n ?? 0);
    return { ids: page.rows.map((r) => Number(r.id)), total, estimated: false };
  });
}
