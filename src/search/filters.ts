/**
 * Personal filters of a list (issue 25 point 7): the ratings a viewer sees and the queries whose
 * posts they never want listed. They compile through the same compiler as `q` and are ANDed onto
 * the request's tree, `request AND rating:(shown) AND NOT (b1 OR b2 ...)`, so every strategy (the
 * in-memory sets among them) serves the result as it serves any query.
 */
import { RATINGS, type Rating } from '../core/schemas.ts';
import { compileTree, type Lookups } from './compile.ts';
import type { Expr } from './expr.ts';
import { type Limits, type Node, parseQuery, QueryError } from './parse.ts';

/** What one blacklist entry may be: fixed, not the SEARCH_* settings, so an entry saved once stays valid. */
export const ENTRY_LIMITS: Limits = { maxLength: 1000, maxTerms: 20, maxDepth: 10 };
export const MAX_ENTRIES = 100;

export interface ListFilters {
  /** The ratings shown unless the request names a rating itself; null or all three: every rating. */
  ratings: readonly Rating[] | null;
  /** Queries in the search language whose posts are left out, whatever the request asks. */
  blacklist: readonly string[];
}

/** One entry's tree; a QueryError (at its character position) for a syntax error, `order:`, or nothing to match. */
export function parseEntry(text: string): Node {
  const parsed = parseQuery(text, ENTRY_LIMITS);
  if (parsed.order) throw new QueryError('order: has no meaning in a blacklist entry', parsed.order.position);
  if (!parsed.tree) throw new QueryError('the entry is empty', 0);
  return parsed.tree;
}

/** Lookups that find nothing: compiling with them checks metatag values (likes:abc) without reading the board. */
const NOTHING: Lookups = {
  tags: async () => new Map(),
  wildcard: async () => [],
  user: async () => undefined,
  pool: async () => undefined,
};

/** Checks an entry as far as a search would (syntax and metatag values); throws QueryError. */
export async function checkEntry(text: string, now: number): Promise<void> {
  await compileTree(parseEntry(text), NOTHING, { now });
}

/**
 * What the filters add to a request whose tree is `request`, or null when they hide nothing (every
 * rating shown, or the request names one; no blacklist entry that matches a post).
 */
export async function filterExpr(f: ListFilters, request: Expr, lookups: Lookups, now: number): Promise<Expr | null> {
  const parts: Expr[] = [];
  if (f.ratings && f.ratings.length < RATINGS.length && !namesRating(request)) parts.push({ kind: 'rating', values: [...f.ratings] });
  // Entries were checked when saved, against the same fixed limits: none fails here.
  const trees = f.blacklist.map(parseEntry);
  if (trees.length > 0) {
    const any: Node = trees.length === 1 ? trees[0] : { kind: 'or', nodes: trees, position: 0 };
    const { expr } = await compileTree(any, lookups, { now });
    if (!nothing(expr)) parts.push({ kind: 'not', expr });
  }
  return parts.length === 0 ? null : parts.length === 1 ? parts[0] : { kind: 'and', exprs: parts };
}

/** The request asks for a rating itself (contentRating=, or `rating:` anywhere in q, negated or not). */
function namesRating(e: Expr): boolean {
  if (e.kind === 'rating') return true;
  if (e.kind === 'not') return namesRating(e.expr);
  return (e.kind === 'and' || e.kind === 'or') && e.exprs.some(namesRating);
}

/** Matches no post whatever the data (tags that do not exist): leaving it out saves a count. */
function nothing(e: Expr): boolean {
  if (e.kind === 'none') return true;
  if (e.kind === 'or') return e.exprs.every(nothing);
  if (e.kind === 'and') return e.exprs.some(nothing);
  return false;
}
