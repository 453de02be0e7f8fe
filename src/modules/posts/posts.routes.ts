import type { TypedApp } from '../../core/typed-app.ts';
import type { Deps } from '../../core/deps.ts';
import { errors, sendJsonText, Message, PostIdParams } from '../../core/schemas.ts';
import { PostDetail, PostDetailQuery, PostDetailWithNeighbours, PostList, PostListQuery, PostPatch } from './posts.schemas.ts';
import { viewerOf } from '../../core/auth.ts';
import { deletePost, editPost } from './posts.edit.ts';
import type { PostsService } from './post-listing.ts';

export function postsRoutes(app: TypedApp, deps: Deps, posts: PostsService): void {
  // The service writes the JSON itself (the response schema is what it follows, and documents it).
  app.get(
    '/api/posts',
    {
      schema: {
        summary: 'List posts, filtered, searched and sorted',
        tags: ['posts'],
        querystring: PostListQuery,
        response: { 200: PostList, ...errors(400, 401, 429, 503) },
      },
      config: { limit: 'posts' },
    },
    async (req, reply) => sendJsonText(reply, await posts.list(req.query)),
  );

  app.get(
    '/api/posts/:id',
    {
      schema: {
        summary: 'One post (and, with `neighbours`, the posts around it in a list)',
        tags: ['posts'],
        params: PostIdParams,
        querystring: PostDetailQuery,
        response: { 200: PostDetailWithNeighbours, ...errors(400, 401, 404, 429) },
      },
      config: { limit: 'post' },
    },
    async (req) => posts.get(req.params.id, req.viewer, req.query),
  );

  app.patch(
    '/api/posts/:id',
    {
      schema: {
        summary: 'Edit a post: title, content, tags, contentRating (its uploader or a moderator)',
        tags: ['posts'],
        params: PostIdParams,
        body: PostPatch,
        response: { 200: PostDetail, ...errors(400, 401, 403, 404, 429) },
      },
      config: { auth: 'user', limit: 'write' },
    },
    async (req) => editPost(deps, viewerOf(req), req.params.id, req.body),
  );

  app.delete(
    '/api/posts/:id',
    {
      schema: {
        summary: 'Delete a post and its media (its uploader or a moderator)',
        tags: ['posts'],
        params: PostIdParams,
        response: { 200: Message, ...errors(401, 403, 404, 429) },
      },
      config: { auth: 'user', limit: 'write' },
    },
    async (req) => deletePost(deps, viewerOf(req), req.params.id),
  );
}
