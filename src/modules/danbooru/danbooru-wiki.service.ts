import { sql } from 'kysely';
import type { Deps } from '../../core/deps.ts';
import { AppError } from '../../core/errors.ts';
import { idList, MAX_LIST_LIMIT, pagingOf } from './danbooru-paging.ts';
import type { WikiPagesQuery } from './danbooru-relations.schemas.ts';
import { danbooruTime } from './danbooru-time.ts';

/**
 * When a page last changed: the newest history entry of the tag that set its description or its
 * name (tags keep no time of change of their own). A history entry holds the changed fields as
 * flat JSON, where `"description":` unescaped can only be a key.
 */
const EDITED = sql<number | null>`(
  select max(h.created_at) from tag_history h
  where h.tag_id = tags.id and h.kind = 'tag' and (h."after" like '%"description":%' or h."after" like '%"name":%')
)`;

/** Tags with a description: Danbooru's wiki pages. */
const pages = (deps: Deps) =>
  deps.db
    .selectFrom('tags')
    .select(['tags.id', 'tags.name', 'tags.description', 'tags.created_at', EDITED.as('edited_at')])
    .where('tags.description', '!=', '');
type PageRow = Awaited<ReturnType<ReturnType<typeof pages>['execute']>>[number];

const wikiObject = (t: PageRow) => ({
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
  let query = pages(deps);
  const title = q['search[title]']?.trim();
  if (title) query = query.where(deps.db.globInsensitive(sql.ref('tags.name'), title));
  const titleNormalize = normalized(q['search[title_normalize]'] ?? '');
  if (titleNormalize) query = query.where(deps.db.globInsensitive(sql.ref('tags.name'), titleNormalize));
  // Several exact titles at once, separated by spaces (Danbooru's titles have none): an importer asks for its tags' pages a hundred a request.
  const titles = (q['search[title_space]'] ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  if (titles.length) query = query.where('tags.name', 'in', titles.slice(0, MAX_LIST_LIMIT));
  if (q['search[id]'] !== undefined) query = query.where('tags.id', 'in', [0, ...idList(q['search[id]']).filter((id) => id <= MAX_ID)]);
  if (cursor && 'below' in cursor) query = query.where('tags.id', '<', Math.min(cursor.below, MAX_ID));
  const above = cursor !== null && 'above' in cursor;
  if (above) {
    if (cursor.above >= MAX_ID) return [];
    query = query.where('tags.id', '>', cursor.above);
  }
  // a<id> reads upwards from the id; Danbooru answers highest first all the same.
  const rows = await query
    .orderBy('tags.id', above ? 'asc' : 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
  if (above) rows.reverse();
  return rows.map(wikiObject);
}

/** GET /wiki_pages/<title or id>.json: all digits is an id, as on Danbooru; else a title. */
export async function getWikiPage(deps: Deps, raw: string) {
  const byId = /^\d+$/.test(raw);
  const id = byId && raw.length <= 10 ? Number(raw) : 0;
  const found = byId ? id > 0 && id <= MAX_ID && pages(deps).where('tags.id', '=', id) : pages(deps).where('tags.name', '=', normalized(raw));
  const row = found ? await found.executeTakeFirst() : undefined;
  if (!row) throw new AppError(404, `Couldn't find WikiPage with '${byId ? 'id' : 'title'}'=${raw}`);
  return wikiObject(row);
}
