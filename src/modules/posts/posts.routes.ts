import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../core/deps.ts';
import { errors, JSON_TEXT } from '../../core/schemas.ts';
import { PostDetail, PostIdParams, PostList, PostListQuery, PostPatch } from './posts.schemas.ts';
import { viewerOf } from '../../core/auth.ts';
import { Message } from '../auth/auth.schemas.ts';
import { deletePost, editPost } from './posts.edit.ts';
import * as posts from './posts.service.ts';
import { NewestOrder } from './newest-order.ts';
import { TagSets } from './tag-sets.ts';
import { CountCache } from './count-cache.ts';
import { TermWords } from './term-search.ts';
import { TagNames } from './tag-names.ts';
import { WordSets } from './title-word-sets.ts';

export function postsRoutes(app: FastifyInstance, deps: Deps): void {
  const memory = {
    order: new NewestOrder(), counts: new CountCache(), tagSets: new TagSets(), words: new TermWords(), wordSets: new WordSets(), tags: new TagNames(), seen: {},
  };
  app.get('/api/posts', {
    schema: {
      summary: 'List posts, filtered, searched and sorted',
      tags: ['posts'],
      querystring: PostListQuery,
      response: { 200: PostList, ...errors(400, 401, 429) },
    },
    config: { limit: 'posts' },
  }, async (req, reply) => {
    // The service writes the JSON itself (the response schema above is what it follows, and documents it).
    reply.type(JSON_TEXT);
    return posts.listPosts(deps, req.query as PostListQuery, memory);
  });

  app.get('/api/posts/:id', {
    schema: {
      summary: 'One post',
      tags: ['posts'],
      params: PostIdParams,
      response: { 200: PostDetail, ...errors(401, 404, 429) },
    },
    config: { limit: 'post' },
  }, async (req) => posts.getPost(deps, (req.params as { id: string }).id, req.viewer));

  app.patch('/api/posts/:id', {
    schema: {
      summary: 'Edit a post: title, content, tags, contentRating (its uploader or a moderator)',
      tags: ['posts'],
      params: PostIdParams,
      body: PostPatch,
      response: { 200: PostDetail, ...errors(400, 401, 403, 404, 429) },
    },
    config: { auth: 'user', limit: 'write' },
  }, async (req) => editPost(deps, viewerOf(req), (req.params as { id: string }).id, req.body as PostPatch));

  app.delete('/api/posts/:id', {
    schema: {
      summary: 'Delete a post and its media (its uploader or a moderator)',
      tags: ['posts'],
      params: PostIdParams,
      response: { 200: Message, ...errors(401, 403, 404, 429) },
    },
    config: { auth: 'user', limit: 'write' },
  }, async (req) => deletePost(deps, viewerOf(req), (req.params as { id: string }).id));
}
