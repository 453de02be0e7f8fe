import type { FastifyRequest } from 'fastify';
import { sendJsonWritten, sendJsonText } from '../../core/schemas.ts';
import type { TypedApp } from '../../core/typed-app.ts';
import type { DanbooruPostsService } from './danbooru-posts.ts';
import { DanbooruPopularQuery, DanbooruPost, DanbooruPostParams, DanbooruPosts, DanbooruPostsQuery, danbooruErrors } from './danbooru.schemas.ts';

/** Route config of Danbooru's API: its errors and key styles, and our rate-limit window of the same data. */
const config = { compat: 'danbooru', limit: 'posts', limitAs: 'GET /api/posts' };

/** scheme://host of the request (behind a trusted proxy, as it forwarded them): Danbooru's URLs are absolute. */
const originOf = (req: FastifyRequest) => `${req.protocol}://${req.host}`;

export function danbooruPostRoutes(app: TypedApp, posts: DanbooruPostsService): void {
  app.get(
    '/posts.json',
    {
      schema: {
        summary: 'Danbooru: a page of posts a search finds',
        tags: ['danbooru'],
        querystring: DanbooruPostsQuery,
        response: { 200: DanbooruPosts, ...danbooruErrors(401, 410, 422, 429) },
      },
      config,
    },
    // 200 posts are some 400 kB, written as bytes (danbooru-post-object.ts), not by the schema's serializer.
    async (req, reply) => sendJsonWritten(reply, await posts.list(req.query, originOf(req))),
  );

  app.get(
    '/posts/:id.json',
    {
      schema: {
        summary: 'Danbooru: one post',
        tags: ['danbooru'],
        params: DanbooruPostParams,
        response: { 200: DanbooruPost, ...danbooruErrors(401, 404, 429) },
      },
      config,
    },
    async (req, reply) => sendJsonText(reply, await posts.get(req.params.id, originOf(req))),
  );

  app.get(
    '/explore/posts/popular.json',
    {
      schema: {
        summary: "Danbooru: a day's, week's or month's posts by score",
        tags: ['danbooru'],
        querystring: DanbooruPopularQuery,
        response: { 200: DanbooruPosts, ...danbooruErrors(401, 410, 422, 429) },
      },
      config,
    },
    async (req, reply) => sendJsonWritten(reply, await posts.popular(req.query, originOf(req))),
  );
}
