import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../core/deps.ts';
import { errors } from '../../core/schemas.ts';
import { TagList, TagListQuery } from './tags.schemas.ts';
import * as tags from './tags.service.ts';
import { TagCache } from './tag-cache.ts';

export function tagsRoutes(app: FastifyInstance, deps: Deps): void {
  const cache = new TagCache(deps.dialect === 'sqlite');
  app.get('/api/tags', {
    schema: {
      summary: 'List tags with post counts, searched and sorted',
      tags: ['tags'],
      querystring: TagListQuery,
      response: { 200: TagList, ...errors(400, 401, 429) },
    },
    config: { limit: 'tags' },
  }, async (req) => tags.listTags(deps, req.query as TagListQuery, cache));
}
