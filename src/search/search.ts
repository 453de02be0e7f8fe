/**
 * The search module's entry: query text (and what the old list parameters already compiled) to
 * a page of post ids and a total. parse -> compile -> plan -> execute; nothing here knows HTTP.
 */
import type { Database } from '../db/engine.ts';
import { compileTree, type Lookups, orderOf } from './compile.ts';
import { type Compiled, type Expr, ORDERS, type OrderKey, type Wildcard } from './expr.ts';
import { DEFAULT_LIMITS, type Limits, parseQuery, QueryError } from './parse.ts';
import { type SearchPage, sqlSearch } from './sql.ts';

export interface SearchSettings {
  limits: Limits;
  /** A query still running after this long ends with OverBudget (503). */
  budgetMs: number;
}

export const DEFAULT_SEARCH: SearchSettings = { limits: DEFAULT_LIMITS, budgetMs: 2_000 };

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
}

export type SearchResult = SearchPage & { wildcards: Wildcard[]; order: readonly OrderKey[] };

/** Compiles `q` with the base query: the Expr, its order and cursor. Throws QueryError. */
export async function compileQuery(r: SearchRequest, lookups: Lookups, settings: SearchSettings): Promise<Compiled> {
  const parsed = parseQuery(r.q, settings.limits);
  const order = orderOf(parsed.order);
  if (order && r.base.order) throw new QueryError('order: cannot be used together with the sortBy parameter; give one of them', parsed.order!.position);
  const { expr, wildcards } = await compileTree(parsed.tree, lookups, { now: r.now });
  const before = r.base.before;
  const keys = order ?? r.base.order ?? ORDERS.newest;
  if (before && keys !== ORDERS.newest) throw new QueryError('the before cursor works with the newest order only', parsed.order?.position ?? 0);
  return { expr: andOf(r.base.expr, expr), order: keys, before, seed: r.seed, wildcards };
}

/** A page of the posts the query matches, in its order, and their total. */
export async function search(db: Database, r: SearchRequest, lookups: Lookups, settings: SearchSettings = DEFAULT_SEARCH): Promise<SearchResult> {
  const compiled = await compileQuery(r, lookups, settings);
  const page = await sqlSearch(db, { ...compiled, expr: simplify(compiled.expr) }, r.offset, r.limit, settings.budgetMs);
  return { ...page, wildcards: compiled.wildcards, order: compiled.order };
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
