/**
 * Query text (and what the old list parameters already compiled) to a page of post ids and a
 * total: parse -> compile -> plan -> execute, over the indexes the engine (engine.ts) hands in.
 * Nothing here knows HTTP.
 */
import { type RawBuilder, sql } from 'kysely';
import type { Database } from '../db/engine.ts';
import { compileTree, type Lookups, orderOf, withPoolOrder } from './compile.ts';
import { type Compiled, type Expr, ORDERS, type OrderKey, type Wildcard } from './expr.ts';
import { parseQuery, QueryError } from './parse.ts';
import { drivenSearch } from './strategies/driven.ts';
import { plan } from './plan.ts';
import { DEFAULT_SEARCH, type SearchSettings, type StrategyName } from './settings.ts';
import type { SetIndexes } from './sets/indexes.ts';
import { type SetStrategy, setsSearch } from './strategies/sets.ts';
import { condition, type SearchPage, sqlSearch } from './strategies/sql.ts';
import { columnsSearch } from './strategies/columns.ts';
import { filterExpr, type ListFilters } from './filters.ts';

/** What the old parameters of GET /api/posts compiled to, ANDed with `q`. */
export interface BaseQuery {
  expr: Expr;
  /** sortBy, when given: `order:` may not be given too. */
  order?: readonly OrderKey[];
  before?: { created: number; id: number };
}

export interface SearchRequest {
  q: string;
  base: BaseQuery;
  offset: number;
  limit: number;
  /** order:random's seed: the same seed gives the same order, so pages agree. */
  seed: number;
  now: number;
  /** The viewer's personal filters (filters.ts), ANDed onto the request; none for other readers of the list. */
  filters?: ListFilters;
}

/** `hidden`: how many posts the request matches that the viewer's filters leave out (0 when they hide nothing). */
export type SearchResult = SearchPage & { wildcards: Wildcard[]; order: readonly OrderKey[]; hidden: number };

/**
 * Compiles `q` with the base query: the Expr, its order and cursor. Throws QueryError. With
 * filters that hide anything, `expr` has them and `unfiltered` is the request's own Expr.
 */
export async function compileQuery(r: SearchRequest, lookups: Lookups, settings: SearchSettings): Promise<Compiled & { unfiltered?: Expr }> {
  const parsed = parseQuery(r.q, settings.limits);
  const order = orderOf(parsed.order, parsed.tree);
  if (order && r.base.order) throw new QueryError('order: cannot be used together with the sortBy parameter; give one of them', parsed.order!.position);
  const { expr, wildcards } = await compileTree(parsed.tree, lookups, { now: r.now });
  const before = r.base.before;
  // The old parameters check the cursor against sortBy; an order: of q is checked here, at its place.
  if (before && order && order !== ORDERS.newest) throw new QueryError('the before cursor works with the newest order only', parsed.order!.position);
  const keys = withPoolOrder(order ?? r.base.order ?? ORDERS.newest, simplify(expr), parsed.order?.position ?? 0);
  const request = andOf(r.base.expr, expr);
  const filter = r.filters ? await filterExpr(r.filters, request, lookups, r.now) : null;
  const filtered = filter ? { expr: andOf(request, filter), unfiltered: request } : { expr: request };
  return { ...filtered, order: keys, before, seed: r.seed, wildcards };
}

const IN_MEMORY: Record<Exclude<StrategyName, 'sql'>, SetStrategy> = {
  sets: setsSearch,
  columns: columnsSearch,
  driven: drivenSearch,
};

/** A page SQL is to answer: the query as compiled, and which page of it. Plain data, so another thread can run it. */
export interface SqlJob {
  sql: Compiled;
  offset: number;
  limit: number;
}

/**
 * A search with its in-memory work done: the page (and, with filters that hide anything, the
 * unfiltered total) either answered or left to SQL. The engine's thread makes it (searchPlan);
 * the thread that asked runs what is left (finishSearch), so that a slow statement holds up only
 * its own request, not every search the engine answers.
 */
export interface SearchPlan {
  page: SearchPage | SqlJob;
  all: SearchPage | SqlJob | null;
  wildcards: Wildcard[];
  order: readonly OrderKey[];
  /** The strategy that answers the page: the planner's choice, or `sql` when it gave the page back. */
  strategy: StrategyName;
}

/** Compiles and plans the query, and answers what the kept sets can answer. */
export async function searchPlan(
  db: Database,
  r: SearchRequest,
  lookups: Lookups,
  settings: SearchSettings = DEFAULT_SEARCH,
  indexes?: SetIndexes,
): Promise<SearchPlan> {
  const { unfiltered, ...compiled } = await compileQuery(r, lookups, settings);
  let strategy: StrategyName = 'sql';
  const execute = async (expr: Expr, offset: number, limit: number, ofPage = false): Promise<SearchPage | SqlJob> => {
    const c = { ...compiled, expr: simplify(expr) };
    const chosen = plan(c, settings, indexes);
    // A strategy that finds it cannot answer after all (dates out of id order, too many candidates) gives null: SQL answers.
    const inMemory = chosen === 'sql' || !indexes ? null : await IN_MEMORY[chosen](db, c, offset, limit, indexes, settings.budgetMs);
    if (ofPage && inMemory) strategy = chosen;
    return inMemory ?? { sql: c, offset, limit };
  };
  // Without filters that hide anything, nothing more than the page is done.
  const [page, all] = await Promise.all([execute(compiled.expr, r.offset, r.limit, true), unfiltered ? execute(unfiltered, 0, 1) : null]);
  return { page, all, wildcards: compiled.wildcards, order: compiled.order, strategy };
}

/** Runs what a plan left to SQL, and makes the result. */
export async function finishSearch(db: Database, p: SearchPlan, budgetMs: number): Promise<SearchResult> {
  const run = (x: SearchPage | SqlJob) => ('sql' in x ? sqlSearch(db, x.sql, x.offset, x.limit, budgetMs) : x);
  const [page, all] = await Promise.all([run(p.page), p.all ? run(p.all) : null]);
  const hidden = all ? Math.max(0, all.total - page.total) : 0;
  return { ...page, wildcards: p.wildcards, order: p.order, hidden };
}

/** A page of the posts the query matches, in its order, and their total. */
export async function search(
  db: Database,
  r: SearchRequest,
  lookups: Lookups,
  settings: SearchSettings = DEFAULT_SEARCH,
  indexes?: SetIndexes,
): Promise<SearchResult> {
  return finishSearch(db, await searchPlan(db, r, lookups, settings, indexes), settings.budgetMs);
}

/**
 * Every post `q` matches, not a page: a statement selecting their ids (in no order), for work over
 * all of them such as a bulk edit. Compiled as a page is (the same errors, at their positions);
 * answered by SQL, which reads the tables as they are now, and lets the caller keep the ids where
 * it writes (INSERT ... SELECT) instead of holding them all in memory.
 */
export async function allMatching(db: Database, q: string, lookups: Lookups, settings: SearchSettings, now: number): Promise<RawBuilder<{ id: number }>> {
  const compiled = await compileQuery({ q, base: { expr: { kind: 'all' } }, offset: 0, limit: 0, seed: 0, now }, lookups, settings);
  return sql<{ id: number }>`SELECT posts.id FROM posts WHERE ${condition(db, simplify(compiled.expr))}`;
}

function andOf(a: Expr, b: Expr): Expr {
  if (a.kind === 'all') return b;
  if (b.kind === 'all') return a;
  return { kind: 'and', exprs: [a, b] };
}

/** The same Expr with constant parts folded: none in an AND, all in an OR, double negation. */
export function simplify(e: Expr): Expr {
  switch (e.kind) {
    case 'not': {
      const inner = simplify(e.expr);
      if (inner.kind === 'all') return { kind: 'none' };
      if (inner.kind === 'none') return { kind: 'all' };
      if (inner.kind === 'not') return inner.expr;
      return inner === e.expr ? e : { kind: 'not', expr: inner };
    }
    case 'and':
    case 'or': {
      const absorbing = e.kind === 'and' ? 'none' : 'all';
      const neutral = e.kind === 'and' ? 'all' : 'none';
      const parts: Expr[] = [];
      for (const x of e.exprs.map(simplify)) {
        if (x.kind === absorbing) return x;
        if (x.kind === neutral) continue;
        if (x.kind === e.kind) parts.push(...x.exprs);
        else parts.push(x);
      }
      if (parts.length === 0) return { kind: neutral };
      return parts.length === 1 ? parts[0] : { kind: e.kind, exprs: parts };
    }
    default:
      return e;
  }
}
