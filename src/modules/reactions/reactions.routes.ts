import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../core/deps.ts';
import { viewerOf } from '../../core/auth.ts';
import { errors, JSON_TEXT } from '../../core/schemas.ts';
import { PostIdParams, PostList } from '../posts/posts.schemas.ts';
import { UsernameParams } from '../users/users.schemas.ts';
import * as reactions from './reactions.service.ts';

const Liked = Type.Object({ liked: Type.Boolean(), likes: Type.Integer({ description: "The post's like count now" }) });
const Favorited = Type.Object({ favorited: Type.Boolean(), favorites: Type.Integer({ description: "The post's favorite count now" }) });
const Page = Type.Object(
  {
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000_000, default: 0 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 24 })),
  },
  { additionalProperties: false },
);

export function reactionsRoutes(app: FastifyInstance, deps: Deps): void {
  const id = (req: { params: unknown }) => (req.params as { id: string }).id;
  const common = { params: PostIdParams, tags: ['reactions'] };
  const write = { auth: 'user' as const, limit: 'write' };

  const kinds = [
    { path: 'like', schema: Liked, act: reactions.like, on: 'Like a post', off: 'Take back a like' },
    { path: 'favorite', schema: Favorited, act: reactions.favorite, on: 'Add a post to your favorites', off: 'Remove a post from your favorites' },
  ];
  for (const k of kinds) {
    for (const [method, on] of [['PUT', true], ['DELETE', false]] as const) {
      app.route({
        method,
        url: `/api/posts/:id/${k.path}`,
        schema: { ...common, summary: `${on ? k.on : k.off} (idempotent); answers the new count`, response: { 200: k.schema, ...errors(401, 403, 404, 429) } },
        config: write,
        handler: async (req) => k.act(deps, viewerOf(req), id(req), on),
      });
    }
  }

  app.get('/api/users/:username/favorites', {
    schema: {
      summary: "A user's favorite posts, most recently favorited first",
      tags: ['users'],
      params: UsernameParams,
      querystring: Page,
      response: { 200: PostList, ...errors(400, 401, 404, 429) },
    },
    config: { limit: 'user' },
  }, async (req, reply) => {
    const q = req.query as { offset?: number; limit?: number };
    reply.type(JSON_TEXT);
    return reactions.favoritesOf(deps, (req.params as { username: string }).username, q.offset ?? 0, q.limit ?? 24);
  });
}
