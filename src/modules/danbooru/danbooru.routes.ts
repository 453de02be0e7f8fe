import type { Deps } from '../../core/deps.ts';
import type { TypedApp } from '../../core/typed-app.ts';
import type { PostsService } from '../posts/posts.service.ts';
import { danbooruOtherRoutes } from './danbooru-others.routes.ts';
import { registerDanbooruErrors } from './danbooru-errors.ts';
import { danbooruPosts } from './danbooru-posts.ts';
import { danbooruPostRoutes } from './danbooru-posts.routes.ts';
import { danbooruRelationRoutes } from './danbooru-relations.routes.ts';
import { Counts, CountsQuery, danbooruErrors } from './danbooru.schemas.ts';

/** Route config of Danbooru's API: its errors and key styles, and our rate-limit window of the same data (`limitAs`). */
const danbooru = (limit: string, limitAs: string) => ({ compat: 'danbooru', limit, limitAs });

/**
 * Danbooru's JSON API at the root (`/posts.json`, ...), beside ours under /api: the read API
 * that gallery-dl, Grabber, Boorusama and LoliSnatcher speak, on the same data, search and limits.
 */
export function danbooruRoutes(app: TypedApp, deps: Deps, list: PostsService): void {
  registerDanbooruErrors();
  const posts = danbooruPosts(deps, list);
  danbooruPostRoutes(app, posts);
  danbooruOtherRoutes(app, deps);
  danbooruRelationRoutes(app, deps);

  app.get(
    '/counts/posts.json',
    {
      schema: {
        summary: 'Danbooru: how many posts a search finds',
        tags: ['danbooru'],
        querystring: CountsQuery,
        response: { 200: Counts, ...danbooruErrors(401, 422, 429) },
      },
      config: danbooru('posts', 'GET /api/posts'),
    },
    async (req) => {
      return { counts: { posts: await posts.count(req.query.tags ?? '') } };
    },
  );
}
