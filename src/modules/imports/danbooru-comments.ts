import { BoardRefusedError, type DanbooruHttp, HttpStatusError } from './danbooru-http.ts';
import { numberedPages } from './danbooru-lists.ts';
import { idOf, isObject, type Json, time } from './danbooru-post.ts';
import type { ImportComment } from './import-item.ts';

/**
 * The comments of a page of posts. Danbooru takes a comma list in `search[post_id]`, so one page
 * of posts costs one request (and one more that finds the next page empty: a board may cap
 * `limit` below what was asked, so a short page does not prove the end). A board that takes one
 * id at a time (this board's own API answers a list with nothing) is then asked post by post.
 */

/** Danbooru's comments carry the author's id only; `creator` adds the user, and keeps the answer small. */
const ONLY = 'id,post_id,body,created_at,is_deleted,creator';
const LIMIT = 1000;

export interface PageComments {
  byPost: Map<number, ImportComment[]>;
  /** Why some comments could not be read, when they could not. */
  problem: string | null;
}

function commentOf(c: Json): ImportComment | null {
  const id = idOf(c.id);
  if (id === null || typeof c.body !== 'string' || c.is_deleted === true) return null;
  const author = typeof c.creator_name === 'string' ? c.creator_name : isObject(c.creator) && typeof c.creator.name === 'string' ? c.creator.name : null;
  return { key: String(id), author, body: c.body, createdAt: time(c.created_at) };
}

export function commentReader(http: DanbooruHttp) {
  let batching = true;
  let askOnly = true;
  /** Why comments are no longer asked for: the board has no /comments.json, or it ignores the post id. */
  let off: string | null = null;

  /** The comment records of `ids`; `foreign` when the board answered with comments of other posts (it ignored the filter). */
  async function read(ids: number[], signal?: AbortSignal): Promise<{ rows: Json[]; foreign: boolean }> {
    const wanted = new Set(ids);
    const rows: Json[] = [];
    const params = { group_by: 'comment', 'search[post_id]': ids.join(','), only: askOnly ? ONLY : undefined };
    const absent = () => {
      off = 'the board has no /comments.json';
    };
    try {
      for await (const page of numberedPages(http, '/comments.json', params, LIMIT, signal, absent)) {
        const mine = page.filter((c) => wanted.has(idOf(c.post_id) ?? 0));
        rows.push(...mine);
        // Paging on through other posts' comments would read the whole board's.
        if (mine.length < page.length) return { rows, foreign: true };
      }
      return { rows, foreign: false };
    } catch (err) {
      // A board that does not know `only` may refuse it: ask again without, and never with it again.
      if (askOnly && err instanceof HttpStatusError && err.status >= 400 && err.status < 500) {
        askOnly = false;
        return read(ids, signal);
      }
      throw err;
    }
  }

  /** The comments of `ids` (the posts of a page that may have some), by post id, oldest first. */
  async function forPosts(ids: number[], signal?: AbortSignal): Promise<PageComments> {
    const byPost = new Map<number, ImportComment[]>();
    const answered = new Set<number>();
    const take = (rows: Json[]) => {
      for (const row of rows) {
        const post = idOf(row.post_id)!;
        answered.add(post);
        const comment = commentOf(row);
        if (comment) byPost.set(post, [...(byPost.get(post) ?? []), comment]);
      }
    };
    try {
      if (!off && batching && ids.length > 1) {
        const { rows } = await read(ids, signal);
        if (rows.length === 0) batching = false;
        take(rows);
      }
      // Posts the batch said nothing of: their comments may all be deleted, or the board took only the first id.
      for (const id of ids.filter((i) => !answered.has(i))) {
        if (off) break;
        const { rows, foreign } = await read([id], signal);
        if (foreign) {
          off = 'the board ignores search[post_id] on /comments.json';
          return { byPost: new Map(), problem: `${off}: no comments are imported` };
        }
        take(rows);
      }
    } catch (err) {
      if (err instanceof BoardRefusedError || signal?.aborted) throw err;
      return { byPost, problem: `comments could not be read: ${(err as Error)?.message ?? err}` };
    }
    for (const list of byPost.values()) list.sort((a, b) => Number(a.key) - Number(b.key));
    return { byPost, problem: null };
  }

  return { forPosts };
}
