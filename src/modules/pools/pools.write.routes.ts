import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../core/deps.ts';
import { viewerOf } from '../../core/auth.ts';
import { errors } from '../../core/schemas.ts';
import { Message } from '../auth/auth.schemas.ts';
import { PostListItem } from '../posts/posts.schemas.ts';
import { AddPoolPost, NewPool, Pool, PoolEnvelope, PoolIdParams, PoolPatch, PoolPostParams, Reorder } from './pools.schemas.ts';
import * as pools from './pools.write.ts';

const PoolWithPosts = Type.Object({ pool: Pool, posts: Type.Array(PostListItem, { description: 'In pool order' }) });
const id = (req: { params: unknown }) => (req.params as { id: string }).id;

export function poolsWriteRoutes(app: FastifyInstance, deps: Deps): void {
  const write = { auth: 'user' as const, limit: 'write' };
  const tags = ['pools'];

  app.post('/api/pools', {
    schema: { summary: 'Create a pool (optionally with posts in order)', tags, body: NewPool, response: { 201: PoolEnvelope, ...errors(400, 401, 403, 404, 429) } },
    config: write,
  }, async (req, reply) => reply.code(201).send(await pools.createPool(deps, viewerOf(req), req.body as NewPool)));

  app.get('/api/pools/:id', {
    schema: { summary: 'A pool with its posts in order (a private pool only for its creator)', tags, params: PoolIdParams, response: { 200: PoolWithPosts, ...errors(401, 404, 429) } },
    config: { limit: 'pools' },
  }, async (req) => pools.getPool(deps, req.viewer, id(req)));

  app.patch('/api/pools/:id', {
    schema: { summary: 'Rename, describe, or make a pool public/private (its creator or a moderator)', tags, params: PoolIdParams, body: PoolPatch, response: { 200: PoolEnvelope, ...errors(400, 401, 403, 404, 429) } },
    config: write,
  }, async (req) => pools.updatePool(deps, viewerOf(req), id(req), req.body as PoolPatch));

  app.delete('/api/pools/:id', {
    schema: { summary: 'Delete a pool (its creator or a moderator); the posts stay', tags, params: PoolIdParams, response: { 200: Message, ...errors(401, 403, 404, 429) } },
    config: write,
  }, async (req) => pools.deletePool(deps, viewerOf(req), id(req)));

  app.post('/api/pools/:id/posts', {
    schema: { summary: 'Add a post to a pool, at a position or at the end', tags, params: PoolIdParams, body: AddPoolPost, response: { 200: PoolWithPosts, ...errors(400, 401, 403, 404, 429) } },
    config: write,
  }, async (req) => {
    const b = req.body as { postId: string; position?: number };
    return pools.addPost(deps, viewerOf(req), id(req), b.postId, b.position);
  });

  app.put('/api/pools/:id/posts', {
    schema: { summary: "Reorder a pool: postIds lists all of the pool's posts in the new order", tags, params: PoolIdParams, body: Reorder, response: { 200: PoolWithPosts, ...errors(400, 401, 403, 404, 429) } },
    config: write,
  }, async (req) => pools.reorder(deps, viewerOf(req), id(req), (req.body as { postIds: string[] }).postIds));

  app.delete('/api/pools/:id/posts/:postId', {
    schema: { summary: 'Remove a post from a pool', tags, params: PoolPostParams, response: { 200: PoolWithPosts, ...errors(401, 403, 404, 429) } },
    config: write,
  }, async (req) => pools.removePost(deps, viewerOf(req), id(req), (req.params as { postId: string }).postId));
}
