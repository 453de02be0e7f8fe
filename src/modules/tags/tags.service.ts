import type { Deps } from '../../core/deps.ts';
import { findUserIdByName } from '../users/users.repo.ts';
import * as repo from './tags.repo.ts';
import type { TagListQuery, TagSort, TimeRange } from './tags.schemas.ts';

const DAY = 86_400_000;
const RANGE_MS: Record<Exclude<TimeRange, 'all'>, number> = { day: DAY, week: 7 * DAY, month: 30 * DAY, year: 365 * DAY };

export async function listTags(deps: Deps, q: TagListQuery) {
  const page = q.page ?? 1;
  const limit = q.limit ?? 50;
  const now = deps.clock.now();
  const range = (q.timeRange ?? 'all') as TimeRange;
  const todayStart = Math.floor(now / DAY) * DAY;
  const weekAgo = now - 7 * DAY;
  const empty = { tags: [], pagination: { total: 0, page, perPage: limit, totalPages: 0 } };

  let uploaderId: number | undefined;
  if (q.author !== undefined) {
    uploaderId = await findUserIdByName(deps.db, q.author);
    if (uploaderId === undefined) return empty;
  }
  const { rows, total } = await repo.listTags(deps.db, deps.dialect, {
    search: q.search?.trim().toLowerCase() || undefined,
    sort: (q.sortBy ?? 'most_used') as TagSort,
    since: range === 'all' ? undefined : now - RANGE_MS[range],
    uploaderId,
    weekAgo,
    offset: (page - 1) * limit,
    limit,
  });
  const recent = await repo.recentCounts(deps.db, rows.map((r) => r.id), todayStart, weekAgo, uploaderId);
  return {
    tags: rows.map((r) => ({
      _id: String(r.id),
      name: r.name,
      postsCount: Number(r.count),
      newPostsToday: recent.get(r.id)?.today ?? 0,
      newPostsThisWeek: recent.get(r.id)?.week ?? 0,
    })),
    pagination: { total, page, perPage: limit, totalPages: Math.ceil(total / limit) },
  };
}
