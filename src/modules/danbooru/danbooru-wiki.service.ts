import type { Deps } from '../../core/deps.ts';
import { AppError } from '../../core/errors.ts';
import { idList, MAX_LIST_LIMIT, pagingOf } from './danbooru-paging.ts';
import type { WikiPagesQuery } from './danbooru-relations.schemas.ts';
import { danbooruTime } from './danbooru-time.ts';
import { findWikiPageById, findWikiPageByName, findWikiPages, type WikiPageRow } from './danbooru-wiki.repo.ts';

const wikiObject = (t: WikiPageRow) => ({
  id: t.id,
  title: t.name,
  body: t.description,
  other_names: [] as string[],
  is_deleted: false as const,
  is_locked: false as const,
  created_at: danbooruTime(t.created_at),
  updated_at: danbooruTime(t.edited_at === null ? t.created_at : Number(t.edited_at)),
});

/** Tag ids are 32-bit integers on PostgreSQL, which refuses a larger number compared with one. */
const MAX_ID = 2_147_483_647;

/** Danbooru's titles: lowercase, spaces as underscores. */
const normalized = (title: string) => title.trim().toLowerCase().replace(/\s+/g, '_');

/**
 * GET /wiki_pages.json: by id, highest first. Danbooru's default is updated_at; the id order
 * is what its b<id>/a<id> cursors page by, and numbered pages do not shift as pages are edited.
 */
export async function listWikiPages(deps: Deps, q: WikiPagesQuery) {
  const { limit, offset, cursor } = pagingOf(q, MAX_LIST_LIMIT);
  const title = q['search[title]']?.trim();
  const titleNormalize = normalized(q['search[title_normalize]'] ?? '');
  // Several exact titles at once, separated by spaces (Danbooru's titles have none): an importer asks for its tags' pages a hundred a request.
  const titles = (q['search[title_space]'] ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  const above = cursor !== null && 'above' in cursor;
  if (above && cursor.above >= MAX_ID) return [];
  // a<id> reads upwards from the id; Danbooru answers highest first all the same.
  const rows = await findWikiPages(deps.db, {
    title: title || undefined,
    titleNormalize: titleNormalize || undefined,
    titles: titles.slice(0, MAX_LIST_LIMIT),
    ids: q['search[id]'] !== undefined ? [0, ...idList(q['search[id]']).filter((id) => id <= MAX_ID)] : undefined,
    below: cursor && 'below' in cursor ? Math.min(cursor.below, MAX_ID) : undefined,
    above: above ? cursor.above : undefined,
    limit,
    offset,
  });
  if (above) rows.reverse();
  return rows.map(wikiObject);
}

/** GET /wiki_pages/<title or id>.json: all digits is an id, as on Danbooru; else a title. */
export async function getWikiPage(deps: Deps, raw: string) {
  const byId = /^\d+$/.test(raw);
  const id = byId && raw.length <= 10 ? Number(raw) : 0;
  const row = byId ? (id > 0 && id <= MAX_ID ? await findWikiPageById(deps.db, id) : undefined) : await findWikiPageByName(deps.db, normalized(raw));
  if (!row) throw new AppError(404, `Couldn't find WikiPage with '${byId ? 'id' : 'title'}'=${raw}`);
  return wikiObject(row);
}
