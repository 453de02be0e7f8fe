import { type DanbooruHttp, HttpStatusError, type Params } from './danbooru-http.ts';
import { idOf, isObject, type Json } from './danbooru-post.ts';

/**
 * Danbooru's lists other than posts (comments, pools, wiki pages, aliases, implications), read
 * with numbered pages: every board speaking the API takes them (this board's own takes no
 * `b<id>` there), and 1000 pages of up to 1000 records reach past any of those lists on Danbooru.
 */

/** Danbooru answers 410 past page 1000. */
const MAX_PAGES = 1000;

/**
 * The pages of `path` from the first until one is empty. A page is not taken as the last for
 * being short, since a board may give fewer than `limit` (this one gives 200). A page that brings
 * no record not seen before also ends it: a board that ignores `page` would repeat the first forever.
 * A board without the endpoint (404) gives no pages.
 */
export async function* numberedPages(
  http: DanbooruHttp,
  path: string,
  params: Params,
  limit: number,
  signal?: AbortSignal,
  onAbsent?: () => void,
): AsyncGenerator<Json[]> {
  const seen = new Set<number>();
  for (let page = 1; page <= MAX_PAGES; page++) {
    let answer: unknown;
    try {
      answer = await http.json(path, { ...params, limit, page }, signal);
    } catch (err) {
      if (err instanceof HttpStatusError && err.status === 410) return;
      throw err;
    }
    if (answer === null) onAbsent?.();
    if (!Array.isArray(answer)) return;
    const fresh = answer.filter(isObject).filter((record) => {
      const id = idOf(record.id);
      if (id === null || seen.has(id)) return false;
      seen.add(id);
      return true;
    });
    if (fresh.length === 0) return;
    yield fresh;
  }
}

/** Every record of every page. */
export async function allPages(http: DanbooruHttp, path: string, params: Params, limit: number, signal?: AbortSignal): Promise<Json[]> {
  const all: Json[] = [];
  for await (const page of numberedPages(http, path, params, limit, signal)) all.push(...page);
  return all;
}
