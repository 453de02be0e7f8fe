import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../core/deps.ts';
import { errors } from '../../core/schemas.ts';
import { PostDetail, PostIdParams, PostList, PostListQuery } from './posts.schemas.ts';
import * as posts from './posts.service.ts';

export function postsRoutes(app: FastifyInstance, deps: Deps): void {
  app.get('/api/posts', {
    schema: {
      summary: 'List posts, filtered, searched and sorted',
      tags: ['posts'],
      querystring: PostListQuery,
      response: { 200: PostList, ...errors(400, 401, 429) },
    },
    config: { limit: 'posts' },
  }, async (req) => posts.listPosts(deps, req.query as PostListQuery));

  app.get('/api/posts/:id', {
    schema: {
      summary: 'One post',
      tags: ['posts'],
      params: PostIdParams,
      response: { 200: PostDetail, ...errors(401, 404, 429) },
    },
    config: { limit: 'post' },
  }, async (req) => posts.getPost(deps, (req.params as { id: string }).id));
}
