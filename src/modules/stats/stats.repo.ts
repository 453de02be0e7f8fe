import { sql } from 'kysely';
import type { Db } from '../../db/engine.ts';

/**
 * The board's counts, all at once: users seen, posts and comments made since `since`; posts,
 * comments and users in all; tags with posts.
 */
export async function boardCounts(db: Db, since: number) {
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
  return { active, posts24, comments24, posts, comments, users, tags };
}

/** The bytes of all posts' originals, and how many posts are images and videos. */
export async function mediaTotals(db: Db) {
  return db
    .selectFrom('posts')
    .select([
      sql<number>`coalesce(sum(file_size), 0)`.as('bytes'),
      sql<number>`coalesce(sum(case when media_type = 'image' then 1 else 0 end), 0)`.as('images'),
      sql<number>`coalesce(sum(case when media_type = 'video' then 1 else 0 end), 0)`.as('videos'),
    ])
    .executeTakeFirstOrThrow();
}
