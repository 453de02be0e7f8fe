/** The planner: which strategy answers a compiled query, by the estimated cost of each that can. */
import type { Compiled, Expr } from './expr.ts';
import type { SearchSettings, StrategyName } from './settings.ts';
import type { SetIndexes } from './sets/indexes.ts';
import { columnsServe } from './strategies/columns.ts';
import { drivenServe, MAX_CANDIDATES, split } from './strategies/driven.ts';
import { setsCost, setsServe } from './strategies/sets.ts';

/** Rough microseconds a SQL query spends on a post it looks at, a set strategy on a bitmap word, and the columns strategy on a candidate. */
const SQL_ROW_US = 1;
const WORD_US = 0.002;
const CANDIDATE_US = 0.01;

/**
 * The strategy with the lowest estimated cost among those that can answer the query. SQL reads
 * rows until it has the page and then counts up to COUNT_CAP: at worst every post, each with a
 * lookup per condition. The sets pass over a bitmap of every post id once a node. The driven
 * strategy costs the sets of its part that is sets, plus a row read for each candidate: how many
 * there are is known only once the sets are evaluated, so it gives way to SQL past
 * MAX_CANDIDATES (driven.ts). The columns strategy tests and ranks each candidate in memory, at
 * worst every post: a hundredth of a row read each.
 */
export function plan(c: Compiled, settings: SearchSettings, indexes?: SetIndexes): StrategyName {
  const forced = settings.strategy ?? 'auto';
  // A pool's order is its rows' positions, which only SQL reads (a pool is small: its posts are found by their link rows).
  if (!indexes || forced === 'sql' || c.order.some((k) => k.field === 'pool')) return 'sql';
  const posts = indexes.posts.newestId + 1;
  const words = Math.ceil(posts / 32);
  const sqlCost = posts * SQL_ROW_US * (1 + leaves(c.expr));
  const setsCheaper = setsCost(c.expr, words) * WORD_US < sqlCost;
  if (setsServe(c) && (forced === 'sets' || (forced === 'auto' && setsCheaper))) return 'sets';
  if (columnsServe(c, indexes) && (forced === 'columns' || forced === 'auto')) {
    const { sets } = split(c.expr);
    const columnsCost = setsCost({ kind: 'and', exprs: sets }, words) * WORD_US + posts * CANDIDATE_US;
    if (forced === 'columns' || columnsCost < sqlCost) return 'columns';
  }
  if (drivenServe(c) && (forced === 'driven' || forced === 'auto')) {
    const { sets } = split(c.expr);
    const drivenCost = setsCost({ kind: 'and', exprs: sets }, words) * WORD_US + MAX_CANDIDATES * SQL_ROW_US;
    if (forced === 'driven' || drivenCost < sqlCost) return 'driven';
  }
  return 'sql';
}

function leaves(e: Expr): number {
  return e.kind === 'and' || e.kind === 'or' ? e.exprs.reduce((n, x) => n + leaves(x), 0) : e.kind === 'not' ? leaves(e.expr) : 1;
}
