import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { eachDatabase, listPage, postsService } from '../../../test/helpers.ts';
import { createPost, createUser } from '../../../test/factories.ts';
import type { Viewer } from '../../core/deps.ts';
import { like } from '../reactions/reactions.service.ts';
import { deletePost, editPost } from './posts.edit.ts';

const RATINGS = ['safe', 'sketchy', 'unsafe'] as const;

eachDatabase('rating and min likes: exact totals kept through likes, edits, deletes and uploads', (ctx) => {
  const posts: number[] = [];
  const fans: Viewer[] = [];

  before(async () => {
    const db = ctx.database;
    const uploader = await createUser(db, { username: 'liked_up' });
    for (let i = 0; i < 5; i++)
      fans.push({
        id: await createUser(db, { username: `fan${i}`, role: i === 0 ? 'moderator' : 'user' }),
        username: `fan${i}`,
        role: i === 0 ? 'moderator' : 'user',
        tier: 'free',
      });
    for (let i = 0; i < 40; i++) {
      posts.push(
        await createPost(db, {
          uploaderId: uploader,
          title: `l${i}`,
          rating: RATINGS[i % 3],
          likeCount: i % 4,
          createdAt: Date.parse('2026-03-01T00:00:00Z') + i * 1000,
        }),
      );
    }
  });

  /** Every (rating, minLikes) total through one service (its counts kept from call to call) against a count of the posts table itself. */
  let service: ReturnType<typeof postsService>;
  async function totalsMatch(label: string) {
    const db = ctx.database;
    service ??= postsService(ctx.app.deps);
    for (const rating of [undefined, ...RATINGS]) {
      for (const minLikes of [1, 2, 3, 4, 6]) {
        const page = await listPage(service, { contentRating: rating, minLikes, sortBy: 'most_liked', limit: 5 });
        let q = db.selectFrom('posts').select(sql<number>`count(*)`.as('n')).where('like_count', '>=', minLikes);
        if (rating) q = q.where('content_rating', '=', rating);
        const { n } = await q.executeTakeFirstOrThrow();
        assert.deepEqual([page.totalPosts, page.totalIsEstimate], [Number(n), false], `${label}: ${rating ?? 'any'} >= ${minLikes}`);
      }
    }
  }

  test('totals are exact after likes, unlikes, a rating edit, a delete and an upload', async () => {
    await totalsMatch('as created');
    for (const fan of fans) await like(ctx.app.deps, fan, String(posts[3]), true);
    for (const fan of fans.slice(0, 3)) await like(ctx.app.deps, fan, String(posts[7]), true);
    await totalsMatch('after likes');
    await like(ctx.app.deps, fans[1], String(posts[3]), false);
    await totalsMatch('after an unlike');
    await editPost(ctx.app.deps, fans[0], String(posts[7]), { contentRating: 'unsafe' });
    await totalsMatch('after a rating edit');
    await deletePost(ctx.app.deps, fans[0], String(posts[3]));
    await totalsMatch('after a delete');
    await createPost(ctx.database, { uploaderId: fans[2].id, title: 'l40', rating: 'safe', likeCount: 5, createdAt: Date.parse('2026-03-02T00:00:00Z') });
    await totalsMatch('after an upload');
  });
});
