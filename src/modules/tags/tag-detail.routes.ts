import type { TypedApp } from '../../core/typed-app.ts';
import type { Deps } from '../../core/deps.ts';
import { viewerOf } from '../../core/auth.ts';
import { errors } from '../../core/schemas.ts';
import { TagNameParams, TagObject, TagPatch, TagPatched } from './tag-detail.schemas.ts';
import { getTag, getTagHistory, patchTag } from './tag-detail.service.ts';
import { TagHistory, TagHistoryQuery } from './tag-history.schemas.ts';

export function tagDetailRoutes(app: TypedApp, deps: Deps): void {
  app.get(
    '/api/tags/:name',
    {
      schema: {
        summary: 'One tag: category, post count, description, aliases and implications (an alias name answers its target)',
        tags: ['tags'],
        params: TagNameParams,
        response: { 200: TagObject, ...errors(400, 401, 404, 429) },
      },
      config: { limit: 'tags' },
    },
    async (req) => getTag(deps, req.params.name),
  );

  app.patch(
    '/api/tags/:name',
    {
      schema: {
        summary: "Change a tag's category, description or name (moderators); a rename leaves the old name as an alias",
        tags: ['tags'],
        params: TagNameParams,
        body: TagPatch,
        response: { 200: TagPatched, ...errors(400, 401, 403, 404, 429) },
      },
      config: { auth: 'user', limit: 'write', scope: 'moderation' },
    },
    async (req) => patchTag(deps, viewerOf(req), req.params.name, req.body),
  );

  app.get(
    '/api/tags/:name/history',
    {
      schema: {
        summary: "A tag's history: every change to its category, description and name, to its aliases and to the implications it is a side of",
        description:
          'Newest first. Each entry says who made the change (null: the command line without --as), when, and the fields it touched before and after. A rename is two entries: the name (kind tag) and the alias the old name became.',
        tags: ['tags'],
        params: TagNameParams,
        querystring: TagHistoryQuery,
        response: { 200: TagHistory, ...errors(400, 401, 404, 429) },
      },
      config: { limit: 'tags' },
    },
    async (req) => getTagHistory(deps, req.params.name, req.query),
  );
}
