import { Type } from 'typebox';
import type { Deps } from '../../core/deps.ts';
import { viewerOf } from '../../core/auth.ts';
import type { TypedApp } from '../../core/typed-app.ts';
import * as reactions from '../reactions/reactions.service.ts';
import { danbooruErrors } from './danbooru.schemas.ts';
import {
  AutocompleteItem,
  AutocompleteQuery,
  CommentsQuery,
  DanbooruComment,
  DanbooruFavorite,
  DanbooruIdParams,
  DanbooruPool,
  DanbooruTag,
  DanbooruVote,
  FavoriteBody,
  FavoriteQuery,
  PoolsQuery,
  TagsQuery,
  VoteQuery,
} from './danbooru-others.schemas.ts';
import * as pools from './danbooru-pools.service.ts';
import * as tags from './danbooru-tags.service.ts';
import { listComments } from './danbooru-comments.service.ts';
import * as votes from './danbooru-reactions.service.ts';
import type { RouteScope } from '../../core/scopes.ts';

/**
 * Route config of Danbooru's API: its errors and key styles, counted in our route's window
 * `limitAs`; a write needs a member, and of a key the scope `write` names.
 */
const danbooru = (limit: string, limitAs: string, write?: RouteScope) => ({
  compat: 'danbooru',
  limit,
  limitAs,
  ...(write ? { auth: 'user' as const, scope: write } : {}),
});
const tagsOf = ['danbooru'];
const NoContent = Type.Null({ description: 'Done' });

/** Danbooru's pools, tags, autocomplete and comments, and the favorite and vote writes its apps make. */
export function danbooruOtherRoutes(app: TypedApp, deps: Deps): void {
  app.get(
    '/pools.json',
    {
      schema: {
        summary: 'Danbooru: pools',
        tags: tagsOf,
        querystring: PoolsQuery,
        response: { 200: Type.Array(DanbooruPool), ...danbooruErrors(401, 410, 422, 429) },
      },
      config: danbooru('pools', 'GET /api/pools'),
    },
    async (req) => pools.listPools(deps, req.viewer, req.query),
  );

  app.get(
    '/pools/:id.json',
    {
      schema: { summary: 'Danbooru: a pool', tags: tagsOf, params: DanbooruIdParams, response: { 200: DanbooruPool, ...danbooruErrors(401, 404, 429) } },
      config: danbooru('pools', 'GET /api/pools/:id'),
    },
    async (req) => pools.getPool(deps, req.viewer, req.params.id),
  );

  app.get(
    '/tags.json',
    {
      schema: {
        summary: 'Danbooru: tags',
        tags: tagsOf,
        querystring: TagsQuery,
        response: { 200: Type.Array(DanbooruTag), ...danbooruErrors(401, 410, 422, 429) },
      },
      config: danbooru('tags', 'GET /api/tags'),
    },
    async (req) => tags.listTags(deps, req.query),
  );

  app.get(
    '/autocomplete.json',
    {
      schema: {
        summary: 'Danbooru: tag name completion',
        tags: tagsOf,
        querystring: AutocompleteQuery,
        response: { 200: Type.Array(AutocompleteItem), ...danbooruErrors(401, 422, 429) },
      },
      config: danbooru('tags', 'GET /api/tags'),
    },
    async (req) => tags.autocomplete(deps, req.query),
  );

  app.get(
    '/comments.json',
    {
      schema: {
        summary: "Danbooru: a post's comments",
        tags: tagsOf,
        querystring: CommentsQuery,
        response: { 200: Type.Array(DanbooruComment), ...danbooruErrors(401, 410, 422, 429) },
      },
      config: danbooru('post', 'GET /api/posts/:id/comments'),
    },
    async (req) => listComments(deps, req.query),
  );

  app.post(
    '/favorites.json',
    {
      schema: {
        summary: 'Danbooru: favorite a post (post_id in the query or the body)',
        tags: tagsOf,
        querystring: FavoriteQuery,
        body: FavoriteBody,
        response: { 201: DanbooruFavorite, ...danbooruErrors(401, 403, 404, 422, 429) },
      },
      config: danbooru('write', 'PUT /api/posts/:id/favorite', 'reactions:write'),
    },
    async (req, reply) => reply.code(201).send(await votes.favorite(deps, viewerOf(req), req.query.post_id ?? req.body?.post_id)),
  );

  app.delete(
    '/favorites/:id.json',
    {
      schema: {
        summary: 'Danbooru: unfavorite a post',
        tags: tagsOf,
        params: DanbooruIdParams,
        response: { 204: NoContent, ...danbooruErrors(401, 403, 404, 429) },
      },
      config: danbooru('write', 'DELETE /api/posts/:id/favorite', 'reactions:write'),
    },
    async (req, reply) => {
      await reactions.favorite(deps, viewerOf(req), req.params.id, false);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/posts/:id/votes.json',
    {
      schema: {
        summary: 'Danbooru: upvote a post (our like); there are no downvotes',
        tags: tagsOf,
        params: DanbooruIdParams,
        querystring: VoteQuery,
        response: { 200: DanbooruVote, ...danbooruErrors(401, 403, 404, 422, 429) },
      },
      config: danbooru('write', 'PUT /api/posts/:id/like', 'reactions:write'),
    },
    async (req) => votes.vote(deps, viewerOf(req), req.params.id, req.query.score),
  );

  app.delete(
    '/posts/:id/votes.json',
    {
      schema: {
        summary: 'Danbooru: take back a vote (our like)',
        tags: tagsOf,
        params: DanbooruIdParams,
        response: { 204: NoContent, ...danbooruErrors(401, 403, 404, 429) },
      },
      config: danbooru('write', 'DELETE /api/posts/:id/like', 'reactions:write'),
    },
    async (req, reply) => {
      await reactions.like(deps, viewerOf(req), req.params.id, false);
      return reply.code(204).send(null);
    },
  );
}
