// The browse page's URL <-> the API query. The URL uses short names (q, tag, rating, sort,
// likes, from, to, page) so a search can be shared; a missing rating means the viewer's
// default (safe only for visitors who are not signed in). q is the search language
// (docs/search.md); the other filters map to the older parameters, which the server ANDs with it.
import { toQuery } from '../api/client.ts';
import type { PostQuery } from '../api/types.ts';
import { queryOrder } from '../lib/query-text.ts';

export const PAGE_SIZE = 48;

export interface BrowseState {
  q: string;
  tags: string[];
  rating: 'all' | 'safe' | 'sketchy' | 'unsafe';
  sort: NonNullable<PostQuery['sortBy']>;
  /** The query's own `order:` value, which overrides the sort control; null without one. */
  order: string | null;
  /** order:random's shuffle, kept in the URL so that pages, Back and a shared link agree. */
  seed: string;
  likes: string;
  from: string;
  to: string;
  page: number;
}

const SORTS = ['newest', 'oldest', 'most_liked', 'most_commented', 'most_favorited'];
const RATINGS = ['all', 'safe', 'sketchy', 'unsafe'];

export function readBrowse(query: URLSearchParams, safeMode: boolean): BrowseState {
  const rating = query.get('rating') ?? '';
  const sort = query.get('sort') ?? '';
  const q = query.get('q') ?? '';
  return {
    q,
    tags: query.getAll('tag').filter(Boolean),
    rating: (RATINGS.includes(rating) ? rating : safeMode ? 'safe' : 'all') as BrowseState['rating'],
    sort: (SORTS.includes(sort) ? sort : 'newest') as BrowseState['sort'],
    order: queryOrder(q),
    seed: /^\d{1,9}$/.test(query.get('seed') ?? '') ? query.get('seed')! : '',
    likes: /^\d+$/.test(query.get('likes') ?? '') ? query.get('likes')! : '',
    from: /^\d{4}-\d{2}-\d{2}$/.test(query.get('from') ?? '') ? query.get('from')! : '',
    to: /^\d{4}-\d{2}-\d{2}$/.test(query.get('to') ?? '') ? query.get('to')! : '',
    page: Math.max(1, Math.min(100_000, Number(query.get('page')) || 1)),
  };
}

/** The GET /api/posts parameters of a browse state, without paging. */
export function apiFilters(s: BrowseState): Record<string, string | string[] | undefined> {
  return {
    q: s.q.trim() || undefined,
    tag: s.tags.length ? s.tags : undefined,
    contentRating: s.rating === 'all' ? undefined : s.rating,
    // The server refuses sortBy beside order: (a 400), so the query's order wins.
    sortBy: s.sort === 'newest' || s.order !== null ? undefined : s.sort,
    minLikes: s.likes || undefined,
    dateFrom: s.from || undefined,
    dateTo: s.to || undefined,
    seed: s.order === 'random' ? s.seed || undefined : undefined,
  };
}

/**
 * The live stream of this list's new posts (`GET /api/events`): the list's filters, `q` always
 * given (empty: every post). Only the newest-first list shows new posts at its top.
 */
export function eventsUrl(filters: Record<string, string | string[] | undefined>): string {
  const { q, sortBy: _s, seed: _r, ...rest } = filters;
  const more = toQuery(rest);
  return `/api/events?q=${encodeURIComponent(String(q ?? ''))}${more ? `&${more.slice(1)}` : ''}`;
}

/** A new shuffle for order:random. */
export const newSeed = () => String(Math.floor(Math.random() * 1e9));

export function postsUrl(filters: Record<string, string | string[] | undefined>, offset: number, limit: number): string {
  return `/api/posts${toQuery({ ...filters, offset: offset || undefined, limit })}`;
}

// What the post page needs to step to the neighbouring posts of the list it was opened from.
export interface BrowseContext {
  filters: Record<string, string | string[] | undefined>;
  /** Position of ids[0] in the list; null when only the order around a post is known. */
  offset: number | null;
  ids: string[];
  /** ids[0] is the list's first post, the last id its last. */
  atStart?: boolean;
  atEnd?: boolean;
}

const CONTEXT_KEY = 'ib.browseContext';

export function saveContext(ctx: BrowseContext): void {
  try {
    sessionStorage.setItem(CONTEXT_KEY, JSON.stringify(ctx));
  } catch {
    /* storage full or disabled: neighbours fall back to dates */
  }
}

export function loadContext(): BrowseContext | null {
  try {
    return JSON.parse(sessionStorage.getItem(CONTEXT_KEY) ?? 'null');
  } catch {
    return null;
  }
}
