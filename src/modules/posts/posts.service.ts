import type { Deps, Viewer } from '../../core/deps.ts';
import { AppError, notFound } from '../../core/errors.ts';
import { avatarUrl, mediaUrl } from '../../core/media-paths.ts';
import { iso, type Rating } from '../../core/schemas.ts';
import { findUserIdByName } from '../users/users.repo.ts';
import * as repo from './posts.repo.ts';
import { countRows, listRows, tagWindow, usesOnly, type PostFilter } from './posts.query.ts';
import type { NewestOrder } from './newest-order.ts';
import { CountCache, type Count } from './count-cache.ts';
import type { PostListQuery, Sort } from './posts.schemas.ts';
import { parseId, toId } from '../../core/ids.ts';
import { fromTagString } from './tag-string.ts';
import { searchOneTerm, type TermWords } from './term-search.ts';
import type { TagLookup, TagNames } from './tag-lookup-cache.ts';
import { counter } from '../../db/counters.ts';
import { tagsFromMemory, type TagSets } from './tag-sets.ts';
import type { WordSets } from './title-word-sets.ts';
import type { Wildcard } from '../../search/expr.ts';

const MAX_TERMS = 10;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;

/** Parses dateFrom/dateTo; a bare date in dateTo means the end of that UTC day. */
export function parseDateParam(name: string, value: string, endOfDay: boolean): number {
  const bare = DATE_ONLY.test(value);
  const ms = bare || DATE_TIME.test(value) ? Date.parse(bare ? `${value}T00:00:00.000Z` : value) : NaN;
  if (Number.isNaN(ms) || (bare && new Date(ms).toISOString().slice(0, 10) !== value)) {
    throw new AppError(400, `query parameter '${name}' must be an ISO date (YYYY-MM-DD) or date-time (YYYY-MM-DDTHH:MM:SSZ)`, {
      details: [{ field: name, message: 'not an ISO 8601 date' }],
    });
  }
  return bare && endOfDay ? ms + 86_400_000 - 1 : ms;
}

/** The `search` parameter's terms, lower case (a 400 past MAX_TERMS). */
export function searchTerms(q: PostListQuery): string[] {
  const terms = (q.search ?? '').trim().toLowerCase().split(/\s+/).filter(Boolean);
  if (terms.length > MAX_TERMS) {
    throw new AppError(400, `query parameter 'search' has ${terms.length} terms; at most ${MAX_TERMS} are allowed`, {
      details: [{ field: 'search', message: `at most ${MAX_TERMS} terms` }],
    });
  }
  return terms;
}

/** The `tag` parameters as tag names (named as uploads name them), each once. */
export const tagNamesOf = (q: PostListQuery): string[] => [...new Set((q.tag ?? []).map((t) => t.trim().toLowerCase().replace(/\s+/g, '_')))];

/** The post the `before` cursor names (a 400 when it is not one, or the order is not newest first). */
export async function cursorPost(deps: Deps, q: PostListQuery & { before: string }): Promise<{ createdAt: number; id: number }> {
  if ((q.sortBy ?? 'newest') !== 'newest') {
    throw new AppError(400, "query parameter 'before' works with sortBy=newest only", { details: [{ field: 'before', message: 'only with sortBy=newest' }] });
  }
  const id = toId(q.before);
  const cursor = id === null ? undefined : await deps.db.selectFrom('posts').select(['id', 'created_at']).where('id', '=', id).executeTakeFirst();
  if (!cursor) {
    throw new AppError(400, `query parameter 'before' must be the id of an existing post`, { details: [{ field: 'before', message: 'unknown post' }] });
  }
  return { createdAt: cursor.created_at, id: cursor.id };
}

/** Parses an opaque post id; anything that is not one of ours is simply not found. */
async function resolveFilter(deps: Deps, q: PostListQuery, tagsNamed: TagLookup): Promise<PostFilter | null> {
  // Dates first: a bad date is a 400 even when another filter already means "no posts".
  const from = q.dateFrom === undefined ? undefined : parseDateParam('dateFrom', q.dateFrom, false);
  const to = q.dateTo === undefined ? undefined : parseDateParam('dateTo', q.dateTo, true);
  const terms = searchTerms(q);
  const tagNames = tagNamesOf(q);
  const found = await tagsNamed([...tagNames, ...terms]);
  if (tagNames.some((n) => !found.has(n))) return null;
  const filter: PostFilter = {
    tags: tagNames.map((name) => ({ ...found.get(name)!, name })),
    terms: terms.map((text) => ({ text, tagId: found.get(text)?.id ?? null, tagCount: found.get(text)?.count ?? 0 })),
    rating: q.contentRating as Rating | undefined,
    minLikes: q.minLikes || undefined, // minLikes=0 filters nothing
    from,
    to,
  };
  if (q.before !== undefined) filter.before = await cursorPost(deps, { ...q, before: q.before });
  if (q.uploader !== undefined) {
    const uploaderId = await findUserIdByName(deps.db, q.uploader);
    if (uploaderId === undefined) return null;
    filter.uploaderId = uploaderId;
  }
  return filter;
}

/** The page's rows and the total, through the cheapest path that answers this filter exactly as the general query would. */
async function pageAndCount(deps: Deps, filter: PostFilter, sort: Sort, offset: number, limit: number, memory: ListMemory, dataVersion: () => Promise<number>) {
  const { order, counts } = memory;
  if (order && sort === 'newest' && usesOnly(filter)) {
    // Every post, newest first: the page is a slice of the order (read with the state that proves it current), and the order counts them.
    const rows = await order.page(deps.db, offset, limit, (ids) => repo.itemsByIds(deps.db, ids, { state: true }));
    return { rows, count: { total: order.size, estimated: false } };
  }
  const key = counts && CountCache.key(filter);
  const {
    count: known,
    keep,
    version,
  } = key ? await counts.lookup(deps.db, key, await dataVersion()) : { count: undefined, keep: () => {}, version: undefined };
  if (order && sort === 'newest') {
    const oneTerm = await searchOneTerm(deps.db, order, filter, offset, limit, known, version, memory);
    if (oneTerm) return kept(oneTerm, keep);
  }
  if (order && memory.tagSets && (sort === 'newest' || sort === 'oldest') && usesOnly(filter, 'tags') && filter.tags.length >= 1) {
    // Tags alone, when ids follow dates: the tags' sets kept in memory (tag-sets.ts).
    const at = await dataVersion();
    const tagged = (await order.refreshAt(deps.db, at))
      ? await tagsFromMemory(deps.db, memory.tagSets, filter, sort, offset, limit, order.size, known, at)
      : null;
    if (tagged) return kept(tagged, keep);
  }
  // Through a big tag, newest first: the sample that estimates the total often holds the page too.
  const window = sort === 'newest' && !known ? await tagWindow(deps.db, filter) : null;
  if (window) {
    const rows =
      window.ids.length >= offset + limit
        ? await repo.itemsByIds(deps.db, window.ids.slice(offset, offset + limit))
        : await listRows(deps.db, filter, sort, offset, limit);
    return kept({ rows, count: { total: window.total, estimated: true } }, keep);
  }
  const dates = order && ((from?: number, to?: number) => order.countBetween(deps.db, from, to));
  const [rows, count] = await Promise.all([listRows(deps.db, filter, sort, offset, limit), known ?? countRows(deps.db, filter, undefined, dates)]);
  return kept({ rows, count }, keep);
}

function kept<T extends { count: Count }>(page: T, keep: (count: Count) => void): T {
  keep(page.count);
  return page;
}

/** What GET /api/posts keeps in memory between requests (each checked against the data on use). */
export interface ListMemory {
  order?: NewestOrder;
  counts?: CountCache;
  tagSets?: TagSets;
  words?: TermWords;
  wordSets?: WordSets;
  tags?: TagNames;
  /** The data version this process saw last (see listPosts). */
  seen?: { version?: number };
}

/**
 * A PostList response as JSON text around items the database wrote (db/schema/list-item.ts), key
 * for key the PostList schema: the route sends it as it is.
 */
export function postListJson(
  items: repo.Items,
  count: { total: number; estimated: boolean },
  offset: number,
  limit: number,
  cursor: string | null,
  wildcards: Wildcard[] = [],
): string {
  return (
    `{"posts":${items.json},"totalPosts":${count.total},"totalIsEstimate":${count.estimated},` +
    `"currentPage":${Math.floor(offset / limit) + 1},"totalPages":${Math.ceil(count.total / limit)},"nextCursor":${cursor === null ? 'null' : JSON.stringify(cursor)}` +
    `${wildcards.length ? `,"wildcards":${JSON.stringify(wildcards)}` : ''}}`
  );
}

/** GET /api/posts, as JSON text (postListJson). */
export async function listPosts(deps: Deps, q: PostListQuery, memory: ListMemory = {}): Promise<string> {
  const offset = q.offset ?? 0;
  const limit = q.limit ?? 24;
  const sort = (q.sortBy ?? 'newest') as Sort;
  const { seen } = memory;
  // The data version this process saw last stands in for a read of it in every request:
  // the statement that reads the page's items reads it too, and if it moved, the list is worked
  // out again from a fresh read. Without a statement of items, the version is read at the end.
  const assumed = seen?.version;
  let page = await listAt(deps, q, offset, limit, sort, memory, assumed);
  if (assumed !== undefined && page.used) {
    const now = page.rows.version ?? (await counter(deps.db, 'version'));
    if (now !== assumed) page = await listAt(deps, q, offset, limit, sort, memory);
  }
  if (seen && page.version !== undefined) seen.version = Math.max(seen.version ?? -1, page.version);
  const { rows, count } = page;
  const last = rows.ids[rows.ids.length - 1];
  return postListJson(rows, count, offset, limit, sort === 'newest' && rows.ids.length === limit && last !== undefined ? String(last) : null);
}

/**
 * The page and total at the data version `at` (read when first needed if not given). `used`:
 * whether anything kept per data version was used; `version`: the newest version known after.
 */
async function listAt(deps: Deps, q: PostListQuery, offset: number, limit: number, sort: Sort, memory: ListMemory, at?: number) {
  let version: Promise<number> | undefined = at === undefined ? undefined : Promise.resolve(at);
  let used = false;
  // The data version, read once and only if a kept value is looked up (a plain newest page needs none).
  const dataVersion = () => {
    used = true;
    return (version ??= counter(deps.db, 'version'));
  };
  const { tags } = memory;
  const tagsNamed: TagLookup = (names) => (tags ? tags.lookup(deps.db, names, dataVersion) : repo.tagsByName(deps.db, names));
  const filter = await resolveFilter(deps, q, tagsNamed);
  const { rows, count } = filter
    ? await pageAndCount(deps, filter, sort, offset, limit, memory, dataVersion)
    : { rows: { ids: [], json: '[]' } as repo.Items, count: { total: 0, estimated: false } };
  return { rows, count, used, version: rows.version ?? (version && (await version)) };
}

export async function getPost(deps: Deps, rawId: string, viewer: Viewer | null = null) {
  const id = parseId(rawId, 'Post');
  const p = (await repo.findPost(deps.db, id)) ?? notFound('Post', rawId);
  const mine = await repo.viewerReactions(deps.db, id, viewer?.id ?? null);
  return {
    id: String(p.id),
    title: p.title,
    content: p.description,
    imageUrl: mediaUrl(p.file_path),
    thumbnail: mediaUrl(p.thumb_path),
    previewUrl: p.preview_path ? mediaUrl(p.preview_path) : null,
    mediaType: p.media_type as 'image' | 'video',
    mime: p.mime,
    fileSize: p.file_size,
    width: p.width,
    height: p.height,
    duration: p.duration,
    codecs: p.codecs ?? null,
    stats: { likes: p.like_count, comments: p.comment_count, favorites: p.favorite_count },
    contentRating: p.content_rating as Rating,
    author: { id: String(p.uploader_id), username: p.username, avatar: avatarUrl(p.avatar_path) },
    tags: fromTagString(p.tag_string),
    createdAt: iso(p.created_at),
    updatedAt: iso(p.updated_at),
    liked: mine.liked,
    favorited: mine.favorited,
  };
}
