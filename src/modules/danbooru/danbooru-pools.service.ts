import type { Deps, Viewer } from '../../core/deps.ts';
import { notFound } from '../../core/errors.ts';
import { parseId } from '../../core/ids.ts';
import { danbooruPage, idList } from './danbooru-paging.ts';
import { danbooruTime } from './danbooru-time.ts';
import type { PoolsQuery } from './danbooru-others.schemas.ts';
import { findPool, findPoolPostLinks, findPools, type PoolRow } from './danbooru-others.repo.ts';

async function withPostIds(deps: Deps, rows: PoolRow[]) {
  const ids = rows.map((r) => r.id);
  const links = ids.length === 0 ? [] : await findPoolPostLinks(deps.db, ids);
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
  const matches = q['search[name_matches]']?.trim().replaceAll(' ', '_');
  const contains = q['search[name_contains]']?.trim().replaceAll(' ', '_');
  if (q['search[category]'] === 'collection') return [];
  const rows = await findPools(deps.db, viewer?.id ?? null, {
    matches: matches ? (matches.includes('*') ? matches : `*${matches}*`) : undefined,
    contains: contains || undefined,
    ids: q['search[id]'] !== undefined ? [0, ...idList(q['search[id]'])] : undefined,
    order: q['search[order]'],
    limit,
    offset,
  });
  return withPostIds(deps, rows);
}

/** One pool; a private pool of someone else is not found, as on our API. */
export async function getPool(deps: Deps, viewer: Viewer | null, rawId: string) {
  const row = await findPool(deps.db, viewer?.id ?? null, parseId(rawId, 'Pool'));
  if (!row) return notFound('Pool', rawId);
  return (await withPostIds(deps, [row]))[0];
}
