/**
 * A post list's request as GET /api/posts takes it: `q` in the search language, and the older
 * parameters (tag, search, uploader, rating, likes, dates, sortBy, before), which are another way
 * of writing a query. Here they become the base query that `q` is ANDed with; each keeps its
 * meaning and its errors.
 */
import type { Deps } from '../core/deps.ts';
import { AppError } from '../core/errors.ts';
import { toId } from '../core/ids.ts';
import type { Rating } from '../core/schemas.ts';
import { type Lookups, namedTagExpr, titleLeaf } from './compile.ts';
import { type Expr, SORT_ORDERS } from './expr.ts';
import type { BaseQuery } from './search.ts';

/** A page of the post list: what GET /api/posts's query string carries (its schema is the posts module's PostListQuery). */
export interface ListQuery {
  q?: string;
  offset?: number;
  limit?: number;
  /** order:random's seed (a new one each request without it). */
  seed?: number;
  tag?: string[];
  search?: string;
  uploader?: string;
  contentRating?: Rating;
  minLikes?: number;
  dateFrom?: string;
  dateTo?: string;
  sortBy?: keyof typeof SORT_ORDERS;
  before?: string;
}

const MAX_TERMS = 10;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;

/** Parses dateFrom/dateTo; a bare date in dateTo means the end of that UTC day. */
function parseDateParam(name: string, value: string, endOfDay: boolean): number {
  const bare = DATE_ONLY.test(value);
  const ms = bare || DATE_TIME.test(value) ? Date.parse(bare ? `${value}T00:00:00.000Z` : value) : NaN;
  if (Number.isNaN(ms) || (bare && new Date(ms).toISOString().slice(0, 10) !== value)) {
    throw new AppError(400, `query parameter '${name}' must be an ISO date (YYYY-MM-DD) or date-time (YYYY-MM-DDTHH:MM:SSZ)`, {
      details: [{ field: name, message: 'not an ISO 8601 date' }],
    });
  }
  return bare && endOfDay ? ms + 86_400_000 - 1 : ms;
}

/** The `search` parameter's terms, lower case (a 400 past MAX_TERMS). */
function searchTerms(q: ListQuery): string[] {
  const terms = (q.search ?? '').trim().toLowerCase().split(/\s+/).filter(Boolean);
  if (terms.length > MAX_TERMS) {
    throw new AppError(400, `query parameter 'search' has ${terms.length} terms; at most ${MAX_TERMS} are allowed`, {
      details: [{ field: 'search', message: `at most ${MAX_TERMS} terms` }],
    });
  }
  return terms;
}

/** The `tag` parameters as tag names (named as uploads name them), each once. */
const tagNamesOf = (q: ListQuery): string[] => [...new Set((q.tag ?? []).map((t) => t.trim().toLowerCase().replace(/\s+/g, '_')))];

/** The post the `before` cursor names (a 400 when it is not one, or the order is not newest first). */
async function cursorPost(deps: Pick<Deps, 'db'>, q: ListQuery & { before: string }): Promise<{ created: number; id: number }> {
  if ((q.sortBy ?? 'newest') !== 'newest') {
    throw new AppError(400, "query parameter 'before' works with sortBy=newest only", { details: [{ field: 'before', message: 'only with sortBy=newest' }] });
  }
  const id = toId(q.before);
  const cursor = id === null ? undefined : await deps.db.selectFrom('posts').select(['id', 'created_at']).where('id', '=', id).executeTakeFirst();
  if (!cursor) {
    throw new AppError(400, `query parameter 'before' must be the id of an existing post`, { details: [{ field: 'before', message: 'unknown post' }] });
  }
  return { created: cursor.created_at, id: cursor.id };
}

/** The old list parameters as the search's base query. */
export async function baseQuery(deps: Pick<Deps, 'db'>, q: ListQuery, lookups: Lookups): Promise<BaseQuery> {
  const parts: Expr[] = [];
  if (q.dateFrom !== undefined || q.dateTo !== undefined) {
    const lo = q.dateFrom === undefined ? -Infinity : parseDateParam('dateFrom', q.dateFrom, false);
    const hi = q.dateTo === undefined ? Infinity : parseDateParam('dateTo', q.dateTo, true);
    parts.push({ kind: 'num', field: 'created', ranges: [{ lo, hi }] });
  }
  const terms = searchTerms(q);
  const tagNames = tagNamesOf(q);
  const found = await lookups.tags([...tagNames, ...terms]);
  for (const name of tagNames) parts.push(namedTagExpr(found.get(name)));
  for (const text of terms) {
    const tag = found.get(text);
    const title = await titleLeaf(text, lookups);
    // A term matches the title, or the post's tag of that name.
    parts.push(tag ? { kind: 'or', exprs: [title, namedTagExpr(tag)] } : title);
  }
  if (q.uploader !== undefined) {
    const id = await lookups.user(q.uploader);
    parts.push(id === undefined ? { kind: 'none' } : { kind: 'uploader', userId: id });
  }
  if (q.contentRating) parts.push({ kind: 'rating', values: [q.contentRating] });
  if (q.minLikes) parts.push({ kind: 'num', field: 'likes', ranges: [{ lo: q.minLikes, hi: Infinity }] });
  const base: BaseQuery = { expr: parts.length === 0 ? { kind: 'all' } : { kind: 'and', exprs: parts } };
  if (q.sortBy) base.order = SORT_ORDERS[q.sortBy];
  if (q.before !== undefined) base.before = await cursorPost(deps, { ...q, before: q.before });
  return base;
}
