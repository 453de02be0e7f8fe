import type { TypedApp } from '../../core/typed-app.ts';
import type { Deps } from '../../core/deps.ts';
import { viewerOf } from '../../core/auth.ts';
import { errors, Message } from '../../core/schemas.ts';
import { AliasFromParams, NewTagAlias, TagAliasCreated, TagAliasList, TagAliasListQuery } from './tag-detail.schemas.ts';
import { createAlias, deleteAlias, listAliases } from './tag-aliases.service.ts';

const RULES =
  'From then on `from` is read as `to` on every write (upload, edit) and in every search (`q`, `tag`, `search`); posts tagged `from` move to `to` and the counts move with them: up to 1,000 (the ALIAS_RETAG_NOW setting) within the request, so the answer already finds them under `to`; more in a background job, in batches by post id, which the answer gives (`job.id`, GET /api/jobs/<id>). ' +
  'No chains: `to` may not be an alias, and `from` may not be the target of one (400 naming the chain, e.g. `kitty -> kitten -> cat`); `from` already an alias is a 409. ' +
  'A tag on either side of an implication cannot become an alias (400 naming the implication): delete the implication first.';

export function tagAliasesRoutes(app: TypedApp, deps: Deps): void {
  app.post(
    '/api/tag-aliases',
    {
      schema: {
        summary: 'Make a name an alias of a tag (moderators)',
        description: RULES,
        tags: ['tags'],
        body: NewTagAlias,
        response: { 201: TagAliasCreated, ...errors(400, 401, 403, 409, 429) },
      },
      config: { auth: 'user', limit: 'write', scope: 'moderation' },
    },
    async (req, reply) => reply.code(201).send(await createAlias(deps, viewerOf(req), req.body)),
  );

  app.get(
    '/api/tag-aliases',
    {
      schema: {
        summary: 'List tag aliases, newest first',
        tags: ['tags'],
        querystring: TagAliasListQuery,
        response: { 200: TagAliasList, ...errors(400, 401, 429) },
      },
      config: { limit: 'tags' },
    },
    async (req) => listAliases(deps, req.query),
  );

  app.delete(
    '/api/tag-aliases/:from',
    {
      schema: {
        summary: 'Remove an alias (moderators); posts keep the tag they were moved to',
        tags: ['tags'],
        params: AliasFromParams,
        response: { 200: Message, ...errors(401, 403, 404, 429) },
      },
      config: { auth: 'user', limit: 'write', scope: 'moderation' },
    },
    async (req) => deleteAlias(deps, viewerOf(req), req.params.from),
  );
}
