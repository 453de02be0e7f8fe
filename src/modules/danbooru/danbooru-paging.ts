import { AppError } from '../../core/errors.ts';

export const MAX_LIMIT = 200;
export const MAX_PAGE = 1000;

/** Danbooru's numbered pages: `limit` clamped to 200 (default 20), `page` 1..1000, a page past that a 410 as Danbooru answers it. */
export function danbooruPage(q: { limit?: number; page?: number }, fallback = 20, max = MAX_LIMIT) {
  const limit = Math.min(q.limit || fallback, max);
  const page = q.page || 1;
  if (page > MAX_PAGE) throw new AppError(410, `You can only view up to ${MAX_PAGE} pages. Please narrow your search terms.`);
  return { limit, offset: (page - 1) * limit };
}

/** Danbooru's timestamps: ISO 8601 with milliseconds and `+00:00`. */
export const danbooruTime = (ms: number) => new Date(ms).toISOString().replace('Z', '+00:00');

/** A comma-separated list of ids, the malformed ones left out. */
export const idList = (raw: string) =>
  raw
    .split(',')
    .map((s) => Number(s.trim()))
    .filter((n) => Number.isSafeInteger(n) && n > 0);
