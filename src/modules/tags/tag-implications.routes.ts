import type { TypedApp } from '../../core/typed-app.ts';
import type { Deps } from '../../core/deps.ts';
import { viewerOf } from '../../core/auth.ts';
import { errors, Message } from '../../core/schemas.ts';
import {
  ImplicationParams,
  NewTagImplication,
  TagImplication,
  TagImplicationList,
  TagImplicationListQuery,
  TagImplicationQueued,
} from './tag-implications.schemas.ts';
import { createImplication, deleteImplication, listImplications } from './tag-implications.service.ts';

const RULES =
  '`from` implies `to`: from then on every write that gives a post `from` (upload, edit, an alias retag) gives it `to` too, and what `to` implies, transitively; ' +
  'the missing tag is created (`to` in the category of `from`). An alias name on either side stands for its target. ' +
  'Answers 201 when no post needs the tag; 202 with `job` when posts tagged `from` lack `to`: a background job gives it to them (follow it at GET /api/jobs/<id>). ' +
  'A tag cannot imply itself, and a pair that would close a cycle is refused (400 naming it, e.g. `animal -> cat -> animal`); a pair that exists is a 409. ' +
  'While a post keeps a tag, an edit cannot remove what it implies (400 naming the implication, e.g. `animal is implied by cat`); removing both at once is fine.';

export function tagImplicationsRoutes(app: TypedApp, deps: Deps): void {
  app.post(
    '/api/tag-implications',
    {
      schema: {
        summary: 'Make a tag imply another (moderators)',
        description: RULES,
        tags: ['tags'],
        body: NewTagImplication,
        response: { 201: TagImplication, 202: TagImplicationQueued, ...errors(400, 401, 403, 409, 429) },
      },
      config: { auth: 'user', limit: 'write', scope: 'moderation' },
    },
    async (req, reply) => {
      const made = await createImplication(deps, viewerOf(req), req.body);
      return reply.code('job' in made ? 202 : 201).send(made);
    },
  );

  app.get(
    '/api/tag-implications',
    {
      schema: {
        summary: 'List tag implications, newest first',
        tags: ['tags'],
        querystring: TagImplicationListQuery,
        response: { 200: TagImplicationList, ...errors(400, 401, 429) },
      },
      config: { limit: 'tags' },
    },
    async (req) => listImplications(deps, req.query),
  );

  app.delete(
    '/api/tag-implications/:from/:to',
    {
      schema: {
        summary: 'Remove an implication (moderators); no post loses a tag',
        tags: ['tags'],
        params: ImplicationParams,
        response: { 200: Message, ...errors(401, 403, 404, 429) },
      },
      config: { auth: 'user', limit: 'write', scope: 'moderation' },
    },
    async (req) => deleteImplication(deps, viewerOf(req), req.params.from, req.params.to),
  );
}
