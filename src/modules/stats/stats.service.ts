import { sql } from 'kysely';
import type { Deps } from '../../core/deps.ts';
import { SERVICE_VERSION } from '../../version.ts';

const DAY = 86_400_000;

export async function publicStatus(deps: Deps) {
  const { db } = deps;
  const since = deps.clock.now() - DAY;
  const count = (q: { executeTakeFirstOrThrow(): Promise<{ n: number }> }) => q.executeTakeFirstOrThrow().then((r) => Number(r.n));
  const n = sql<number>`count(*)`.as('n');
  const [active, posts24, comments24, posts, comments, users, tags] = await Promise.all([
    count(db.selectFrom('users').select(n).where('last_seen_at', '>=', since)),
    count(db.selectFrom('posts').select(n).where('created_at', '>=', since)),
    count(db.selectFrom('comments').select(n).where('created_at', '>=', since)),
    count(db.selectFrom('posts').select(n)),
    count(db.selectFrom('comments').select(n)),
    count(db.selectFrom('users').select(n)),
    count(db.selectFrom('tags').select(n).where('post_count', '>', 0)),
  ]);
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
  const [status, storage] = await Promise.all([
    publicStatus(deps),
    deps.db
      .selectFrom('posts')
      .select([
        sql<number>`coalesce(sum(file_size), 0)`.as('bytes'),
        sql<number>`coalesce(sum(case when media_type = 'image' then 1 else 0 end), 0)`.as('images'),
        sql<number>`coalesce(sum(case when media_type = 'video' then 1 else 0 end), 0)`.as('videos'),
      ])
      .executeTakeFirstOrThrow(),
  ]);
  return {
    ...status,
    storage: { mediaBytes: Number(storage.bytes), files: { image: Number(storage.images), video: Number(storage.videos) } },
    uptimeSeconds: Math.floor((deps.clock.now() - deps.startedAt) / 1000),
  };
}
