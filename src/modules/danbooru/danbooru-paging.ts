import { AppError } from '../../core/errors.ts';
import type { Cursor } from './danbooru-query.ts';

export const MAX_LIMIT = 200;
export const MAX_PAGE = 1000;
/** Danbooru's own cap on a page; the lists of small rows (tag relations, wiki pages) give as much, posts stay at MAX_LIMIT. */
export const MAX_LIST_LIMIT = 1000;

/** Danbooru's numbered pages: `limit` clamped to 200 (default 20), `page` 1..1000, a page past that a 410 as Danbooru answers it. */
export function danbooruPage(q: { limit?: number; page?: number }, fallback = 20, max = MAX_LIMIT) {
  const limit = Math.min(q.limit || fallback, max);
  const page = q.page || 1;
  if (page > MAX_PAGE) throw new AppError(410, `You can only view up to ${MAX_PAGE} pages. Please narrow your search terms.`);
  return { limit, offset: (page - 1) * limit };
}

/** A comma-separated list of ids, the malformed ones left out. */
export const idList = (raw: string) =>
  raw
    .split(',')
    .map((s) => Number(s.trim()))
    .filter((n) => Number.isSafeInteger(n) && n > 0);

export const DEFAULT_LIMIT = 20;
export interface Paging {
  limit: number;
  /** Posts to skip (0 with a cursor). */
  offset: number;
  cursor: Cursor;
}

/**
 * Danbooru's `limit` and `page`: a limit over `max` (200 for posts) is `max` and under 1 is 1
 * (clients ask for more than a server gives, Danbooru clamps too); a page number 1 to 1000 (past
 * that a 410, as Danbooru answers), `b<id>` or `a<id>`; anything else a 422.
 */
export function pagingOf(q: { limit?: string | number; page?: string | number }, max = MAX_LIMIT): Paging {
  const rawLimit = q.limit === undefined || q.limit === '' ? DEFAULT_LIMIT : Number(q.limit);
  if (!Number.isFinite(rawLimit)) throw new AppError(400, `limit: '${q.limit}' is not a number`);
  const limit = Math.min(max, Math.max(1, Math.floor(rawLimit)));
  const page = String(q.page ?? '1');
  const cursor = /^([ab])(\d{1,15})$/.exec(page);
  if (cursor) return { limit, offset: 0, cursor: cursor[1] === 'b' ? { below: Number(cursor[2]) } : { above: Number(cursor[2]) } };
  if (!/^-?\d{1,15}$/.test(page)) throw new AppError(400, `page: '${page}' is not a page number, b<id> or a<id>`);
  const n = Math.max(1, Number(page));
  if (n > MAX_PAGE) throw new AppError(410, 'You can only view up to 1000 pages. Please narrow your search terms.');
  return { limit, offset: (n - 1) * limit, cursor: null };
}
