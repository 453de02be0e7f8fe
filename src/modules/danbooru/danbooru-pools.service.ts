import { sql } from 'kysely';
import type { Deps, Viewer } from '../../core/deps.ts';
import { notFound } from '../../core/errors.ts';
import { parseId } from '../../core/ids.ts';
import { visibleTo } from '../pools/pools.repo.ts';
import { danbooruPage, idList } from './danbooru-paging.ts';
import { danbooruTime } from './danbooru-time.ts';
import type { PoolsQuery } from './danbooru-others.schemas.ts';

/** Our pool names have spaces where Danbooru's have underscores; searches compare in Danbooru's spelling. */
const underscored = sql<string>`replace(pools.name, ' ', '_')`;
const ORDERS = { updated_at: 'pools.updated_at', created_at: 'pools.created_at', name: 'pools.name', post_count: 'pools.post_count' } as const;

/** Pools the viewer may see: public ones and their own private ones (the rule of pools.repo.ts). */
function visiblePools(deps: Deps, viewer: Viewer | null) {
  return deps.db
    .selectFrom('pools')
    .selectAll('pools')
    .where(visibleTo(viewer?.id ?? null));
}
type PoolRow = Awaited<ReturnType<ReturnType<typeof visiblePools>['execute']>>[number];

async function withPostIds(deps: Deps, rows: PoolRow[]) {
  const ids = rows.map((r) => r.id);
  const links =
    ids.length === 0 ? [] : await deps.db.selectFrom('pool_posts').select(['pool_id', 'post_id']).where('pool_id', 'in', ids).orderBy('position').execute();
  const posts = new Map<number, number[]>(ids.map((id) => [id, []]));
  for (const l of links) posts.get(l.pool_id)!.push(l.post_id);
  return rows.map((p) => ({
    id: p.id,
    name: p.name.replaceAll(' ', '_'),
    description: p.description,
    post_ids: posts.get(p.id)!,
    post_count: p.post_count,
    // Our pools are ordered lists of posts, which is what Danbooru calls a series.
    category: 'series' as const,
    is_active: true,
    is_deleted: false,
    created_at: danbooruTime(p.created_at),
    updated_at: danbooruTime(p.updated_at),
  }));
}

export async function listPools(deps: Deps, viewer: Viewer | null, q: PoolsQuery) {
  const { limit, offset } = danbooruPage(q);
  let query = visiblePools(deps, viewer);
  const matches = q['search[name_matches]']?.trim().replaceAll(' ', '_');
  if (matches) query = query.where(deps.db.globInsensitive(underscored, matches.includes('*') ? matches : `*${matches}*`));
  const contains = q['search[name_contains]']?.trim().replaceAll(' ', '_');
  if (contains) query = query.where(deps.db.containsInsensitive(underscored, contains));
  if (q['search[id]'] !== undefined) query = query.where('pools.id', 'in', [0, ...idList(q['search[id]'])]);
  if (q['search[category]'] === 'collection') return [];
  const order = ORDERS[q['search[order]'] as keyof typeof ORDERS] ?? ORDERS.updated_at;
  const rows = await query
    .orderBy(order, order === 'pools.name' ? 'asc' : 'desc')
    .orderBy('pools.id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
  return withPostIds(deps, rows);
}

/** One pool; a private pool of someone else is not found, as on our API. */
export async function getPool(deps: Deps, viewer: Viewer | null, rawId: string) {
  const row = await visiblePools(deps, viewer).where('pools.id', '=', parseId(rawId, 'Pool')).executeTakeFirst();
  if (!row) return notFound('Pool', rawId);
  return (await withPostIds(deps, [row]))[0];
}
