import { Type } from 'typebox';
import type { TypedApp } from '../../core/typed-app.ts';
import type { Deps } from '../../core/deps.ts';
import { viewerOf } from '../../core/auth.ts';
import { errors, sendJsonText, PostIdParams, UsernameParams } from '../../core/schemas.ts';
import { PostList } from '../posts/posts.schemas.ts';
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

export function reactionsRoutes(app: TypedApp, deps: Deps): void {
  const common = { params: PostIdParams, tags: ['reactions'] };
  const write = { auth: 'user' as const, limit: 'write', scope: 'reactions:write' as const };

  const kinds = [
    { path: 'like', schema: Liked, act: reactions.like, on: 'Like a post', off: 'Take back a like' },
    { path: 'favorite', schema: Favorited, act: reactions.favorite, on: 'Add a post to your favorites', off: 'Remove a post from your favorites' },
  ];
  for (const k of kinds) {
    for (const [method, on] of [
      ['PUT', true],
      ['DELETE', false],
    ] as const) {
      app.route({
        method,
        url: `/api/posts/:id/${k.path}`,
        schema: { ...common, summary: `${on ? k.on : k.off} (idempotent); answers the new count`, response: { 200: k.schema, ...errors(401, 403, 404, 429) } },
        config: write,
        handler: async (req) => k.act(deps, viewerOf(req), req.params.id, on),
      });
    }
  }

  // The service writes the JSON itself, as GET /api/posts does.
  app.get(
    '/api/users/:username/favorites',
    {
      schema: {
        summary: "A user's favorite posts, most recently favorited first",
        tags: ['users'],
        params: UsernameParams,
        querystring: Page,
        response: { 200: PostList, ...errors(400, 401, 404, 429) },
      },
      config: { limit: 'user' },
    },
    async (req, reply) => sendJsonText(reply, await reactions.favoritesOf(deps, req.params.username, req.query.offset ?? 0, req.query.limit ?? 24)),
  );
}
