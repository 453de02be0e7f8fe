import { sql } from 'kysely';
import type { Database, Db } from '../../db/engine.ts';

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
const pages = (db: Db) =>
  db
    .selectFrom('tags')
    .select(['tags.id', 'tags.name', 'tags.description', 'tags.created_at', EDITED.as('edited_at')])
    .where('tags.description', '!=', '');
export type WikiPageRow = Awaited<ReturnType<ReturnType<typeof pages>['execute']>>[number];

export interface WikiPageSearch {
  /** Names matching this glob. */
  title?: string;
  /** Names matching this glob too. */
  titleNormalize?: string;
  /** Names that are one of these (none: any). */
  titles: string[];
  ids?: number[];
  /** Ids below this one. */
  below?: number;
  /** Ids above this one, read upwards. */
  above?: number;
  limit: number;
  offset: number;
}

/** A page of wiki pages by id, highest first, or lowest first when read upwards from `above`. */
export async function findWikiPages(db: Database, s: WikiPageSearch): Promise<WikiPageRow[]> {
  let query = pages(db);
  if (s.title) query = query.where(db.globInsensitive(sql.ref('tags.name'), s.title));
  if (s.titleNormalize) query = query.where(db.globInsensitive(sql.ref('tags.name'), s.titleNormalize));
  if (s.titles.length) query = query.where('tags.name', 'in', s.titles);
  if (s.ids !== undefined) query = query.where('tags.id', 'in', s.ids);
  if (s.below !== undefined) query = query.where('tags.id', '<', s.below);
  if (s.above !== undefined) query = query.where('tags.id', '>', s.above);
  return query
    .orderBy('tags.id', s.above !== undefined ? 'asc' : 'desc')
    .limit(s.limit)
    .offset(s.offset)
    .execute();
}

/** The wiki page of the tag with this id, or undefined. */
export async function findWikiPageById(db: Db, id: number): Promise<WikiPageRow | undefined> {
  return pages(db).where('tags.id', '=', id).executeTakeFirst();
}

/** The wiki page of the tag of this name, or undefined. */
export async function findWikiPageByName(db: Db, name: string): Promise<WikiPageRow | undefined> {
  return pages(db).where('tags.name', '=', name).executeTakeFirst();
}
