import type { Deps, Viewer } from '../../core/deps.ts';
import { iso } from '../../core/schemas.ts';
import * as repo from './pools.repo.ts';
import type { PoolRow } from './pools.repo.ts';
import type { PoolListQuery } from './pools.schemas.ts';

export const poolJson = (p: PoolRow) => ({
  _id: String(p.id),
  name: p.name,
  description: p.description,
  postCount: p.post_count,
  isPublic: p.is_public === 1,
  creator: { username: p.username },
  createdAt: iso(p.created_at),
  updatedAt: iso(p.updated_at),
});

export async function listPools(deps: Deps, viewer: Viewer | null, q: PoolListQuery) {
  const page = q.page ?? 1;
  const limit = q.limit ?? 20;
  const { rows, total } = await repo.listPools(deps.db, viewer?.id ?? null, (page - 1) * limit, limit);
  return {
    pools: rows.map(poolJson),
    totalPools: total,
    page,
    totalPages: Math.ceil(total / limit),
  };
}
