import { MEDIA_PREFIX } from '../../core/media-paths.ts';
import type { Deps } from '../../core/deps.ts';
import { AppError } from '../../core/errors.ts';
import { toId } from '../../core/ids.ts';
import type { PostsService } from '../posts/posts.service.ts';
import type { PostListQuery } from '../posts/posts.schemas.ts';
import { DanbooruPostArray, rowNumber } from './danbooru-post-object.ts';
import { readPostRows } from './danbooru-posts.repo.ts';
import { pagingOf } from './danbooru-paging.ts';
import { ourQuery } from './danbooru-query.ts';
import { TagCategories } from './danbooru-tag-categories.ts';
import { UserNames } from '../users/user-names.ts';

export interface DanbooruListQuery {
  tags?: string;
  limit?: string | number;
  page?: string | number;
}

/**
 * Danbooru's post reads, on our list: the ids come from GET /api/posts's own search (so nothing
 * it would not show appears here), then one statement reads the page's rows; the categories of
 * their tags (TagCategories) and their uploaders' names (UserNames) come from memory. The list's
 * own items are not read.
 */
export function danbooruPosts(deps: Deps, posts: PostsService) {
  const { db } = deps;
  const tagCategories = new TagCategories();

  const userNames = new UserNames();

  /** The page's posts in the order of `ids` (a post missing, or hidden, left out), to be written as Danbooru's objects, and the data version they were read at. */
  const objects = async (ids: number[], origin: string): Promise<{ value: DanbooruPostArray; version?: number }> => {
    const found = ids.length === 0 ? new Map<number, string>() : await readPostRows(db, ids);
    const texts: string[] = [];
    for (const id of ids) {
      const text = found.get(id);
      if (text !== undefined && visible(text)) texts.push(text);
    }
    const uploaders = texts.map((t) => rowNumber(t, 'uploader_id'));
    const names = await userNames.of(db, uploaders);
    // The data version and the last tag history entry, read with the rows: what the categories are kept to.
    const version = texts.length ? rowNumber(texts[0], 'version') : undefined;
    const categories = texts.length ? await tagCategories.current(db, `${version}/${rowNumber(texts[0], 'tagsChanged')}`) : NO_CATEGORIES;
    // Danbooru's URLs are absolute: this server's own /media/ unless media have a public address.
    const mediaRoot = deps.config.mediaPublicUrl || origin + MEDIA_PREFIX;
    const value = new DanbooruPostArray(
      texts,
      uploaders.map((id) => names.get(id) ?? ''),
      mediaRoot,
      categories,
    );
    return { value, version };
  };

  /**
   * A page of /api/posts's list (what an anonymous viewer is shown there) as Danbooru's objects: the
   * ids from the search, then one statement reads their rows (and the data version).
   */
  const listed = async (q: PostListQuery, origin: string): Promise<DanbooruPostArray> => posts.page({ query: q, render: ({ ids }) => objects(ids, origin) });

  return {
    /** GET /posts.json: the page's posts, to be written as Danbooru's objects (sendJsonWritten). */
    list: async (q: DanbooruListQuery, origin: string) => {
      const paging = pagingOf(q);
      const query = await ourQuery(db, q.tags ?? '', paging.cursor);
      const found = await listed({ q: query, offset: paging.offset, limit: paging.limit }, origin);
      // a<id> reads upwards from the id; Danbooru answers newest first all the same.
      if (paging.cursor && 'above' in paging.cursor) found.reverse();
      return found;
    },
    /** GET /counts/posts.json. */
    count: async (tags: string) => {
      return posts.page({ query: { q: await ourQuery(db, tags, null), limit: 1 }, render: async ({ total }) => ({ value: total }) });
    },
    /** GET /posts/<id>.json: the post, when /api/posts would show it. */
    get: async (rawId: string, origin: string) => {
      const id = toId(rawId);
      const found = id === null ? null : await listed({ q: `id:${id}`, limit: 1 }, origin);
      if (!found?.length) throw new AppError(404, `Couldn't find Post with 'id'=${rawId}`);
      return found.json(0);
    },
    /** GET /explore/posts/popular.json: the span's posts by score, then newest. */
    popular: async (q: { date?: string; scale?: 'day' | 'week' | 'month'; limit?: string | number; page?: string | number }, origin: string) => {
      const paging = pagingOf({ limit: q.limit, page: q.page });
      if (paging.cursor) throw new AppError(400, 'page: popular posts are paged by number');
      const [from, to] = span(q.date ?? new Date(deps.clock.now()).toISOString().slice(0, 10), q.scale ?? 'day');
      return listed({ dateFrom: from, dateTo: to, sortBy: 'most_liked', offset: paging.offset, limit: paging.limit }, origin);
    },
  };
}

/**
 * Whether the viewer may see the post (its row's text). Every post is public today; a post hidden
 * later returns false here, and then neither its object, URLs nor md5 are given.
 */
const visible = (_row: string) => true;

/** An empty page has no tags to categorise. */
const NO_CATEGORIES: ReadonlyMap<string, string> = new Map();

const DAY = 86_400_000;

/** The first and last day (YYYY-MM-DD) of the day, week (from Monday) or calendar month of `date`. */
export function span(date: string, scale: 'day' | 'week' | 'month'): [string, string] {
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(date) ? Date.parse(`${date}T00:00:00.000Z`) : NaN;
  if (Number.isNaN(ms)) throw new AppError(400, `date: '${date}' is not a date (YYYY-MM-DD)`);
  const d = new Date(ms);
  const day = (t: number) => new Date(t).toISOString().slice(0, 10);
  if (scale === 'day') return [day(ms), day(ms)];
  if (scale === 'week') {
    const monday = ms - ((d.getUTCDay() + 6) % 7) * DAY;
    return [day(monday), day(monday + 6 * DAY)];
  }
  const first = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  const last = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) - DAY;
  return [day(first), day(last)];
}

export type DanbooruPostsService = ReturnType<typeof danbooruPosts>;
