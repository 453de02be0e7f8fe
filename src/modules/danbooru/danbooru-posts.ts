import { MEDIA_PREFIX } from '../../core/media-paths.ts';
import { sql } from 'kysely';
import type { Deps } from '../../core/deps.ts';
import { FIELD_SEPARATOR } from '../../db/engine.ts';
import { coalescedReads } from '../../db/coalesce.ts';
import { preparedOnDatabase } from '../../db/prepared.ts';
import { AppError } from '../../core/errors.ts';
import { toId } from '../../core/ids.ts';
import type { PostsService } from '../posts/post-listing.ts';
import type { PostListQuery } from '../posts/posts.schemas.ts';
import { DanbooruPostArray, type PostRow } from './danbooru-post-object.ts';
import { pagingOf } from './danbooru-paging.ts';
import { ourQuery } from './danbooru-query.ts';
import { TagCategories } from './danbooru-tag-categories.ts';
import { UserNames } from '../users/user-names.ts';

export interface DanbooruListQuery {
  tags?: string;
  limit?: string | number;
  page?: string | number;
}

/**
 * Danbooru's post reads, on our list: the ids come from GET /api/posts's own search (so nothing
 * it would not show appears here), then one statement reads the page's rows; the categories of
 * their tags (TagCategories) and their uploaders' names (UserNames) come from memory. The list's
 * own items are not read.
 */
export function danbooruPosts(deps: Deps, posts: PostsService) {
  const { db } = deps;
  const tagCategories = new TagCategories();

  const userNames = new UserNames();

  /** The rows of the given posts with their uploaders' names, and the data version they were read at. */
  const rowsOf = async (ids: number[]): Promise<{ rows: PostRow[]; version?: number }> => {
    if (ids.length === 0) return { rows: [] };
    const found = await rowReads(db, ids);
    const read = ids.flatMap((id) => found.get(id) ?? []);
    const rows = read.map((r) => r.row);
    const names = await userNames.of(
      db,
      rows.map((r) => r.uploader_id),
    );
    for (const r of rows) r.uploader_name = names.get(r.uploader_id) ?? '';
    return { rows, version: read[0]?.version };
  };

  /** The page's posts in the order of `ids`, to be written as Danbooru's objects; a post missing (or hidden) is left out. */
  const objects = async (ids: number[], rows: PostRow[], origin: string): Promise<DanbooruPostArray> => {
    const categories = await tagCategories.current(db);
    // Danbooru's URLs are absolute: this server's own /media/ unless media have a public address.
    const mediaRoot = deps.config.mediaPublicUrl || origin + MEDIA_PREFIX;
    const byId = new Map(rows.map((r) => [r.id, r]));
    const shown = ids.flatMap((id) => {
      const row = byId.get(id);
      return row && visible(row) ? [row] : [];
    });
    return new DanbooruPostArray(shown, mediaRoot, categories);
  };

  /**
   * A page of /api/posts's list (what an anonymous viewer is shown there) as Danbooru's objects: the
   * ids from the search, then one statement reads their rows (and the data version).
   */
  const listed = async (q: PostListQuery, origin: string): Promise<DanbooruPostArray> =>
    posts.page(q, async ({ ids }) => {
      const { rows, version } = await rowsOf(ids);
      return { value: await objects(ids, rows, origin), version };
    });

  return {
    /** GET /posts.json: the page's posts, to be written as Danbooru's objects (sendJsonWritten). */
    list: async (q: DanbooruListQuery, origin: string) => {
      const paging = pagingOf(q);
      const query = await ourQuery(db, q.tags ?? '', paging.cursor);
      const found = await listed({ q: query, offset: paging.offset, limit: paging.limit }, origin);
      // a<id> reads upwards from the id; Danbooru answers newest first all the same.
      if (paging.cursor && 'above' in paging.cursor) found.rows.reverse();
      return found;
    },
    /** GET /counts/posts.json. */
    count: async (tags: string) => {
      return posts.page({ q: await ourQuery(db, tags, null), limit: 1 }, async ({ total }) => ({ value: total }));
    },
    /** GET /posts/<id>.json: the post, when /api/posts would show it. */
    get: async (rawId: string, origin: string) => {
      const id = toId(rawId);
      const found = id === null ? null : await listed({ q: `id:${id}`, limit: 1 }, origin);
      if (!found?.rows.length) throw new AppError(404, `Couldn't find Post with 'id'=${rawId}`);
      return found.json(0);
    },
    /** GET /explore/posts/popular.json: the span's posts by score, then newest. */
    popular: async (q: { date?: string; scale?: 'day' | 'week' | 'month'; limit?: string | number; page?: string | number }, origin: string) => {
      const paging = pagingOf({ limit: q.limit, page: q.page });
      if (paging.cursor) throw new AppError(400, 'page: popular posts are paged by number');
      const [from, to] = span(q.date ?? new Date(deps.clock.now()).toISOString().slice(0, 10), q.scale ?? 'day');
      return listed({ dateFrom: from, dateTo: to, sortBy: 'most_liked', offset: paging.offset, limit: paging.limit }, origin);
    },
  };
}

/**
 * Whether the viewer may see the post. Every post is public today; a post hidden later returns
 * false here, and then neither its object, URLs nor md5 are given.
 */
const visible = (_row: PostRow) => true;

/** The columns of PostRow, in the order rowsOf reads them. */
const ROW_FIELDS = [
  'id',
  'uploader_id',
  'content_rating',
  'media_type',
  'file_size',
  'width',
  'height',
  'duration',
  'md5',
  'file_path',
  'thumb_path',
  'preview_path',
  'like_count',
  'favorite_count',
  'created_at',
  'updated_at',
  'tag_string',
  'last_commented_at',
  'source',
  'parent_id',
  'has_children',
] as const;

/** Whether any post has this one as its parent (the index on parent_id answers it). */
const HAS_CHILDREN = sql`CASE WHEN EXISTS (SELECT 1 FROM posts c WHERE c.parent_id = posts.id) THEN 1 ELSE 0 END`;

/** The fields of ROW_FIELDS that are not the post's own columns. */
const COMPUTED = { has_children: HAS_CHILDREN };

/** The rows of posts by id, each with its fields as one text and the data version beside it. */
const rowsById = preparedOnDatabase((db, p: { ids: unknown }) =>
  db
    .selectFrom('posts')
    .select([
      db.fieldsText(ROW_FIELDS.map((f) => COMPUTED[f as keyof typeof COMPUTED] ?? sql.ref(`posts.${f}`))).as('t'),
      sql<number>`(SELECT value FROM counters WHERE name = 'version')`.as('version'),
    ])
    .where(db.oneOf(sql.ref('posts.id'), p.ids)),
);

/** Posts' rows by id: pages asked at once read theirs in one statement (coalescedReads). */
const rowReads = coalescedReads(async (db, ids: number[]) => {
  const found = new Map<number, { row: PostRow; version: number }>();
  for (const r of await rowsById(db, { ids: db.listParam(ids) })) {
    const row = rowOf(r.t);
    found.set(row.id, { row, version: Number(r.version) });
  }
  return found;
});

/** A PostRow from its fields as one text (rowsOf), its uploader's name not yet given (''); an empty text is NULL where the column may be. */
function rowOf(text: string): PostRow {
  const f = text.split(FIELD_SEPARATOR);
  return {
    id: Number(f[0]),
    uploader_id: Number(f[1]),
    content_rating: f[2],
    media_type: f[3],
    file_size: Number(f[4]),
    width: Number(f[5]),
    height: Number(f[6]),
    duration: numberOrNull(f[7]),
    md5: orNull(f[8]),
    file_path: f[9],
    thumb_path: f[10],
    preview_path: orNull(f[11]),
    like_count: Number(f[12]),
    favorite_count: Number(f[13]),
    created_at: Number(f[14]),
    updated_at: Number(f[15]),
    tag_string: f[16],
    uploader_name: '',
    last_commented_at: numberOrNull(f[17]),
    source: orNull(f[18]),
    parent_id: numberOrNull(f[19]),
    has_children: f[20] === '1',
  };
}

const orNull = (s: string) => (s === '' ? null : s);
const numberOrNull = (s: string) => (s === '' ? null : Number(s));

const DAY = 86_400_000;

/** The first and last day (YYYY-MM-DD) of the day, week (from Monday) or calendar month of `date`. */
export function span(date: string, scale: 'day' | 'week' | 'month'): [string, string] {
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(date) ? Date.parse(`${date}T00:00:00.000Z`) : NaN;
  if (Number.isNaN(ms)) throw new AppError(400, `date: '${date}' is not a date (YYYY-MM-DD)`);
  const d = new Date(ms);
  const day = (t: number) => new Date(t).toISOString().slice(0, 10);
  if (scale === 'day') return [day(ms), day(ms)];
  if (scale === 'week') {
    const monday = ms - ((d.getUTCDay() + 6) % 7) * DAY;
    return [day(monday), day(monday + 6 * DAY)];
  }
  const first = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  const last = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) - DAY;
  return [day(first), day(last)];
}

export type DanbooruPostsService = ReturnType<typeof danbooruPosts>;
