import { Type } from 'typebox';
import type { Deps } from '../../core/deps.ts';
import type { TypedApp } from '../../core/typed-app.ts';
import { danbooruErrors } from './danbooru.schemas.ts';
import { DanbooruTagAlias, DanbooruTagImplication, DanbooruWikiPage, RelationsQuery, WikiPageParams, WikiPagesQuery } from './danbooru-relations.schemas.ts';
import { listAliases, listImplications } from './danbooru-relations.service.ts';
import { getWikiPage, listWikiPages } from './danbooru-wiki.service.ts';

/** Route config of Danbooru's API: its errors and key styles, counted in our route's window `limitAs`. */
const danbooru = (limit: string, limitAs: string) => ({ compat: 'danbooru', limit, limitAs });
const tagsOf = ['danbooru'];

/**
 * Danbooru's tag aliases, implications and wiki pages: what an importer reads from any Danbooru
 * besides posts, so it can read this board too (issue 57).
 */
export function danbooruRelationRoutes(app: TypedApp, deps: Deps): void {
  app.get(
    '/tag_aliases.json',
    {
      schema: {
        summary: 'Danbooru: tag aliases',
        description: 'Our aliases as TagAlias objects, newest first; all are active.',
        tags: tagsOf,
        querystring: RelationsQuery,
        response: { 200: Type.Array(DanbooruTagAlias), ...danbooruErrors(401, 410, 422, 429) },
      },
      config: danbooru('tags', 'GET /api/tag-aliases'),
    },
    async (req) => listAliases(deps, req.query),
  );

  app.get(
    '/tag_implications.json',
    {
      schema: {
        summary: 'Danbooru: tag implications',
        description: 'Our implications as TagImplication objects, newest first; all are active.',
        tags: tagsOf,
        querystring: RelationsQuery,
        response: { 200: Type.Array(DanbooruTagImplication), ...danbooruErrors(401, 410, 422, 429) },
      },
      config: danbooru('tags', 'GET /api/tag-implications'),
    },
    async (req) => listImplications(deps, req.query),
  );

  app.get(
    '/wiki_pages.json',
    {
      schema: {
        summary: 'Danbooru: wiki pages (tags with a description)',
        description: 'Each tag with a non-empty description is a WikiPage: id the tag id, title its name, body its description.',
        tags: tagsOf,
        querystring: WikiPagesQuery,
        response: { 200: Type.Array(DanbooruWikiPage), ...danbooruErrors(401, 410, 422, 429) },
      },
      config: danbooru('tags', 'GET /api/tags/:name'),
    },
    async (req) => listWikiPages(deps, req.query),
  );

  app.get(
    '/wiki_pages/:title.json',
    {
      schema: {
        summary: 'Danbooru: a wiki page, by title or id',
        tags: tagsOf,
        params: WikiPageParams,
        response: { 200: DanbooruWikiPage, ...danbooruErrors(401, 404, 429) },
      },
      config: danbooru('tags', 'GET /api/tags/:name'),
    },
    async (req) => getWikiPage(deps, req.params.title),
  );
}
