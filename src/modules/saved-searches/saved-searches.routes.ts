import type { TypedApp } from '../../core/typed-app.ts';
import type { Deps } from '../../core/deps.ts';
import { viewerOf } from '../../core/auth.ts';
import { errors, Message } from '../../core/schemas.ts';
import type { PostsService } from '../posts/posts.service.ts';
import { Feed, FeedQuery, NewSavedSearch, SavedSearch, SavedSearchChange, SavedSearchIdParams, SavedSearchList, Seen } from './saved-searches.schemas.ts';
import * as saved from './saved-searches.service.ts';

const FEED_TEXT =
  'A post enters your feed when it is made (uploaded, imported or approved) and matches any of your saved searches, as you see the list then (your ratings and blacklist); it stays there until deleted. ' +
  'A search saved or changed applies to posts made after it. `unseen` counts the posts that came since you last called `POST /api/saved-searches/feed/seen`.';

export function savedSearchesRoutes(app: TypedApp, deps: Deps, posts: PostsService): void {
  const common = { tags: ['saved searches'] };
  const read = { auth: 'user' as const, limit: 'posts' };
  const write = { auth: 'user' as const, limit: 'write', scope: 'read' as const };

  app.get(
    '/api/saved-searches',
    { schema: { ...common, summary: 'Your saved searches', response: { 200: SavedSearchList, ...errors(401, 429) } }, config: read },
    async (req) => saved.listSavedSearches(deps, viewerOf(req)),
  );

  app.post(
    '/api/saved-searches',
    {
      schema: {
        ...common,
        summary: 'Save a search (at most 50)',
        description: FEED_TEXT,
        body: NewSavedSearch,
        response: { 201: SavedSearch, ...errors(400, 401, 403, 409, 429) },
      },
      config: write,
    },
    async (req, reply) => reply.code(201).send(await saved.createSavedSearch(deps, posts, viewerOf(req), req.body)),
  );

  app.patch(
    '/api/saved-searches/:id',
    {
      schema: {
        ...common,
        summary: 'Rename a saved search or change its query',
        params: SavedSearchIdParams,
        body: SavedSearchChange,
        response: { 200: SavedSearch, ...errors(400, 401, 403, 404, 429) },
      },
      config: write,
    },
    async (req) => saved.changeSavedSearch(deps, posts, viewerOf(req), req.params.id, req.body),
  );

  app.delete(
    '/api/saved-searches/:id',
    {
      schema: { ...common, summary: 'Delete a saved search', params: SavedSearchIdParams, response: { 200: Message, ...errors(401, 403, 404, 429) } },
      config: write,
    },
    async (req) => saved.deleteSavedSearch(deps, viewerOf(req), req.params.id),
  );

  app.get(
    '/api/saved-searches/feed',
    {
      schema: {
        ...common,
        summary: 'The posts that matched any of your saved searches, newest first, and how many are new',
        description: FEED_TEXT,
        querystring: FeedQuery,
        response: { 200: Feed, ...errors(400, 401, 429) },
      },
      config: read,
    },
    async (req) => saved.feed(deps, viewerOf(req), req.query),
  );

  app.post(
    '/api/saved-searches/feed/seen',
    { schema: { ...common, summary: 'Mark your feed seen: `unseen` counts from here', response: { 200: Seen, ...errors(401, 403, 429) } }, config: write },
    async (req) => saved.markFeedSeen(deps, viewerOf(req)),
  );
}
