import { Type } from 'typebox';
import type { Deps } from '../../core/deps.ts';
import { viewerOf } from '../../core/auth.ts';
import { errors, Message } from '../../core/schemas.ts';
import type { TypedApp } from '../../core/typed-app.ts';
import { PostListItem } from '../posts/posts.schemas.ts';
import { AddPoolPost, NewPool, Pool, PoolEnvelope, PoolIdParams, PoolList, PoolListQuery, PoolPatch, PoolPostParams, Reorder } from './pools.schemas.ts';
import { listPools } from './pools.service.ts';
import * as pools from './pools.write.ts';

const PoolWithPosts = Type.Object({ pool: Pool, posts: Type.Array(PostListItem, { description: 'In pool order' }) });

export function poolsRoutes(app: TypedApp, deps: Deps): void {
  const write = { auth: 'user' as const, limit: 'write', scope: 'pools:write' as const };
  const tags = ['pools'];

  app.post(
    '/api/pools',
    {
      schema: {
        summary: 'Create a pool (optionally with posts in order)',
        tags,
        body: NewPool,
        response: { 201: PoolEnvelope, ...errors(400, 401, 403, 404, 429) },
      },
      config: write,
    },
    async (req, reply) => reply.code(201).send(await pools.createPool(deps, viewerOf(req), req.body)),
  );

  app.get(
    '/api/pools',
    {
      schema: { summary: 'List pools (ordered collections of posts)', tags, querystring: PoolListQuery, response: { 200: PoolList, ...errors(400, 401, 429) } },
      config: { limit: 'pools' },
    },
    async (req) => listPools(deps, req.viewer, req.query),
  );

  app.get(
    '/api/pools/:id',
    {
      schema: {
        summary: 'A pool with its posts in order (a private pool only for its creator)',
        tags,
        params: PoolIdParams,
        response: { 200: PoolWithPosts, ...errors(401, 404, 429) },
      },
      config: { limit: 'pools' },
    },
    async (req) => pools.getPool(deps, req.viewer, req.params.id),
  );

  app.patch(
    '/api/pools/:id',
    {
      schema: {
        summary: 'Rename, describe, or make a pool public/private (its creator or a moderator)',
        tags,
        params: PoolIdParams,
        body: PoolPatch,
        response: { 200: PoolEnvelope, ...errors(400, 401, 403, 404, 429) },
      },
      config: write,
    },
    async (req) => pools.updatePool(deps, viewerOf(req), req.params.id, req.body),
  );

  app.delete(
    '/api/pools/:id',
    {
      schema: {
        summary: 'Delete a pool (its creator or a moderator); the posts stay',
        tags,
        params: PoolIdParams,
        response: { 200: Message, ...errors(401, 403, 404, 429) },
      },
      config: write,
    },
    async (req) => pools.deletePool(deps, viewerOf(req), req.params.id),
  );

  app.post(
    '/api/pools/:id/posts',
    {
      schema: {
        summary: 'Add a post to a pool, at a position or at the end',
        tags,
        params: PoolIdParams,
        body: AddPoolPost,
        response: { 200: PoolWithPosts, ...errors(400, 401, 403, 404, 429) },
      },
      config: write,
    },
    async (req) => pools.addPost(deps, viewerOf(req), req.params.id, req.body.postId, req.body.position),
  );

  app.put(
    '/api/pools/:id/posts',
    {
      schema: {
        summary: "Reorder a pool: postIds lists all of the pool's posts in the new order",
        tags,
        params: PoolIdParams,
        body: Reorder,
        response: { 200: PoolWithPosts, ...errors(400, 401, 403, 404, 429) },
      },
      config: write,
    },
    async (req) => pools.reorder(deps, viewerOf(req), req.params.id, req.body.postIds),
  );

  app.delete(
    '/api/pools/:id/posts/:postId',
    {
      schema: { summary: 'Remove a post from a pool', tags, params: PoolPostParams, response: { 200: PoolWithPosts, ...errors(401, 403, 404, 429) } },
      config: write,
    },
    async (req) => pools.removePost(deps, viewerOf(req), req.params.id, req.params.postId),
  );
}
