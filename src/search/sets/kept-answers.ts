/**
 * The totals and first pages kept of a query, under one rule: kept at a stamp (the data version,
 * and the counts' counter where counts are in the query), and not at all for queries reading sets
 * whose changes move no data version (favorites, pools).
 */
import type { Compiled, Expr } from '../expr.ts';
import type { SearchPage } from '../strategies/sql.ts';
import type { SetIndexes } from './indexes.ts';
import type { Total } from './totals.ts';

/** A query's key in the kept totals and heads, made once a compiled query (both read it). */
const QUERY_KEYS = new WeakMap<Compiled, string>();
function queryKey(c: Compiled): string {
  let key = QUERY_KEYS.get(c);
  if (key === undefined) QUERY_KEYS.set(c, (key = JSON.stringify([c.expr, c.before ?? null])));
  return key;
}

/**
 * The totals kept of a query at `stamp` (the data version, and the counts' counter where counts
 * are in the query): none without a stamp, nor when `reads` has sets whose changes move no data
 * version (favorites, pools).
 */
export function keptTotalsOf(indexes: SetIndexes, c: Compiled, reads: Expr, stamp: string | null) {
  const totals = stamp !== null && !movesUnversioned(reads) ? indexes.totals : undefined;
  const key = queryKey(c);
  return {
    known: (): Total | undefined => totals?.peek(key, stamp!),
    remember: (work: () => Total): Total => (totals ? totals.of(key, stamp!, work) : work()),
  };
}

/**
 * The first pages kept of a query in its order (KeptHeads), under keptTotalsOf's rule: `page`
 * gives the posts `offset` to `offset + limit` and the total when the kept ones reach them;
 * `keep` keeps the first of `want` posts asked (fewer: every match).
 */
export function keptHeadsOf(indexes: SetIndexes, c: Compiled, reads: Expr, stamp: string | null) {
  const heads = stamp !== null && !movesUnversioned(reads) ? indexes.heads : undefined;
  const key = `${queryKey(c)}${JSON.stringify(c.order)}`;
  return {
    page(offset: number, limit: number): SearchPage | undefined {
      const kept = heads?.peek(key, stamp!);
      if (!kept || (!kept.complete && kept.ids.length < offset + limit)) return undefined;
      return { ids: kept.ids.slice(offset, offset + limit), total: kept.total, estimated: kept.estimated };
    },
    keep(ids: number[], total: Total, want: number): void {
      heads?.keep(key, stamp!, { ids, total: total.total, estimated: total.estimated, complete: ids.length < want });
    },
  };
}

/** Whether the expression reads sets whose changes move no data version (favorites, pools). */
function movesUnversioned(e: Expr): boolean {
  if (e.kind === 'fav' || e.kind === 'pool' || e.kind === 'pooled') return true;
  if (e.kind === 'not') return movesUnversioned(e.expr);
  return (e.kind === 'and' || e.kind === 'or') && e.exprs.some(movesUnversioned);
}
