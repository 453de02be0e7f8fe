import type { TypedApp } from '../../core/typed-app.ts';
import { errors } from '../../core/schemas.ts';
import { TagList, TagListQuery } from './tags.schemas.ts';
import type { TagsService } from './tags.service.ts';

export function tagsRoutes(app: TypedApp, tags: TagsService): void {
  app.get(
    '/api/tags',
    {
      schema: {
        summary: 'List tags with post counts, searched and sorted',
        tags: ['tags'],
        querystring: TagListQuery,
        response: { 200: TagList, ...errors(400, 401, 429) },
      },
      config: { limit: 'tags' },
    },
    async (req) => tags.list(req.query),
  );
}
