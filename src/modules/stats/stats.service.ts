import type { Deps } from '../../core/deps.ts';
import { SERVICE_VERSION } from '../../version.ts';
import { boardCounts, mediaTotals } from './stats.repo.ts';

const DAY = 86_400_000;

export async function publicStatus(deps: Deps) {
  const since = deps.clock.now() - DAY;
  const { active, posts24, comments24, posts, comments, users, tags } = await boardCounts(deps.db, since);
  return {
    activeUsers24h: active,
    newPosts24h: posts24,
    newComments24h: comments24,
    totalPosts: posts,
    totalComments: comments,
    totalUsers: users,
    totalTags: tags,
    serverStatus: 'healthy',
    version: SERVICE_VERSION,
  };
}

export async function systemStats(deps: Deps) {
  const [status, storage] = await Promise.all([publicStatus(deps), mediaTotals(deps.db)]);
  return {
    ...status,
    storage: { mediaBytes: Number(storage.bytes), files: { image: Number(storage.images), video: Number(storage.videos) } },
    uptimeSeconds: Math.floor((deps.clock.now() - deps.startedAt) / 1000),
  };
}
