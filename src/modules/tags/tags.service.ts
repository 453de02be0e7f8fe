import type { Deps } from '../../core/deps.ts';
import { findUserIdByName } from '../../db/queries/user-ids.ts';
import * as repo from './tags.repo.ts';
import { TagCache, type TagEntry } from './tag-cache.ts';
import { NameSearch } from './name-search.ts';
import type { TagListQuery, TagSort, TimeRange } from './tags.schemas.ts';
import type { TagCategory } from '../../core/tag-categories.ts';
import { pagination } from '../../core/lists.ts';

const DAY = 86_400_000;
const RANGE_MS: Record<Exclude<TimeRange, 'all'>, number> = { day: DAY, week: 7 * DAY, month: 30 * DAY, year: 365 * DAY };

export async function listTags(deps: Deps, q: TagListQuery, cache?: TagCache) {
  const page = q.page ?? 1;
  const limit = q.limit ?? 50;
  const now = deps.clock.now();
  const range = (q.timeRange ?? 'all') as TimeRange;
  const todayStart = Math.floor(now / DAY) * DAY;
  const weekAgo = now - 7 * DAY;
  const empty = { tags: [], pagination: pagination(0, page, limit) };

  let uploaderId: number | undefined;
  if (q.author !== undefined) {
    uploaderId = await findUserIdByName(deps.db, q.author);
    if (uploaderId === undefined) return empty;
  }
  const search = q.search?.trim().toLowerCase() || undefined;
  const sort = (q.sortBy ?? 'most_used') as TagSort;
  const since = range === 'all' ? undefined : now - RANGE_MS[range];
  const offset = (page - 1) * limit;
  const { rows, total } =
    uploaderId === undefined && cache
      ? await fromCache(deps, cache, { search, category: q.category, sort, since, weekAgo, now, offset, limit })
      : await repo.listTags(deps.db, { search, category: q.category, sort, since, uploaderId, weekAgo, offset, limit });
  const recent =
    uploaderId === undefined && cache
      ? await recentFromCache(
          deps,
          cache,
          rows.map((r) => r.id),
          todayStart,
          weekAgo,
        )
      : await repo.recentCounts(
          deps.db,
          rows.map((r) => r.id),
          todayStart,
          weekAgo,
          uploaderId,
        );
  return {
    tags: rows.map((r) => ({
      _id: String(r.id),
      name: r.name,
      category: r.category as TagCategory,
      postsCount: Number(r.count),
      newPostsToday: recent.get(r.id)?.today ?? 0,
      newPostsThisWeek: recent.get(r.id)?.week ?? 0,
    })),
    pagination: pagination(total, page, limit),
  };
}

interface CacheQuery {
  search?: string;
  category?: TagCategory;
  sort: TagSort;
  since?: number;
  weekAgo: number;
  now: number;
  offset: number;
  limit: number;
}

const byName = (a: TagEntry, b: TagEntry) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** The same list as the SQL path (repo.listTags), from the in-memory tags and window counts. */
async function fromCache(deps: Deps, cache: TagCache, q: CacheQuery) {
  const tags = await cache.all(deps.db);
  const inWindow = q.since === undefined ? undefined : await cache.since(deps.db, q.since);
  const week = q.sort === 'trending' ? await cache.since(deps.db, q.weekAgo) : undefined;
  const windowKey = q.since === undefined ? 'all' : String(q.now - q.since);
  // Lists over a time window (or ordered by one, as trending is) change with the minute; the others only with the data.
  const timed = q.since !== undefined || q.sort === 'trending' ? q.now : undefined;
  // The tags of the window with the window's counts, once per data change and minute.
  const counted =
    inWindow === undefined
      ? tags.entries
      : tags.memo(`window|${windowKey}`, () => tags.entries.filter((e) => inWindow.has(e.id)).map((e) => ({ ...e, count: inWindow.get(e.id)! })), timed);
  const category = q.category;
  const listed = category === undefined ? counted : tags.memo(`category|${category}|${windowKey}`, () => counted.filter((e) => e.category === category), timed);
  const order: Record<TagSort, (a: TagEntry, b: TagEntry) => number> = {
    most_used: (a, b) => b.count - a.count || byName(a, b),
    newest: (a, b) => b.createdAt - a.createdAt || b.id - a.id,
    alphabetical: byName,
    trending: (a, b) => (week!.get(b.id) ?? 0) - (week!.get(a.id) ?? 0) || b.count - a.count || byName(a, b),
  };
  // Every page and search of a list comes from one sorted array, sorted once per data change (and minute, when timed).
  const sorted = tags.memo(`sorted|${q.sort}|${windowKey}|${category ?? ''}`, () => new NameSearch([...listed].sort(order[q.sort]), () => tags.names()), timed);
  const found = sorted.find(q.search ?? '', q.offset, q.limit);
  return { rows: found.items, total: found.total };
}

/** newPostsToday / newPostsThisWeek from the cached window counts (as of this minute). */
async function recentFromCache(deps: Deps, cache: TagCache, ids: number[], todayStart: number, weekAgo: number) {
  const [today, week] = [await cache.since(deps.db, todayStart), await cache.since(deps.db, weekAgo)];
  return new Map(ids.map((id) => [id, { today: today.get(id) ?? 0, week: week.get(id) ?? 0 }]));
}

/** GET /api/tags with this process's cache of the tag lists (shared with the posts' details: createServices); buildApp makes one, warm-up included. */
export function createTagsService(deps: Deps, cache = new TagCache()) {
  return {
    list: (q: TagListQuery) => listTags(deps, q, cache),
    warm: () => listTags(deps, { sortBy: 'trending', timeRange: 'week', limit: 1 }, cache),
  };
}

export type TagsService = ReturnType<typeof createTagsService>;
