import type { Deps, Viewer } from '../../core/deps.ts';
import { AppError, notFound } from '../../core/errors.ts';
import { avatarUrl, mediaUrl } from '../../core/media-paths.ts';
import { iso, type Rating } from '../../core/schemas.ts';
import * as repo from './posts.repo.ts';
import type { PostListQuery } from './posts.schemas.ts';
import { parseId, toId } from '../../core/ids.ts';
import { fromTagString } from './tag-string.ts';
import { type DetailRow, detailBytes } from './post-detail-bytes.ts';
import type { KnownTagDetails } from './tag-details.ts';
import type { Wildcard } from '../../search/expr.ts';
import type { NewPost } from '../../db/types.ts';

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

/**
 * A PostList response as JSON text around items the database wrote (db/schema/list-item.ts), key
 * for key the PostList schema: the route sends it as it is. `count.hidden`, when given (GET
 * /api/posts), is written as hiddenPosts.
 */
export function postListJson(
  items: repo.Items,
  count: { total: number; estimated: boolean; hidden?: number },
  offset: number,
  limit: number,
  cursor: string | null,
  wildcards: Wildcard[] = [],
): string {
  return `{"posts":${items.json}${postListRest(count, offset, limit, cursor, wildcards)}`;
}

/** What a PostList response holds after its posts, from the comma on (postListJson). */
export function postListRest(
  count: { total: number; estimated: boolean; hidden?: number },
  offset: number,
  limit: number,
  cursor: string | null,
  wildcards: Wildcard[] = [],
): string {
  return (
    `,"totalPosts":${count.total},"totalIsEstimate":${count.estimated},` +
    `"currentPage":${Math.floor(offset / limit) + 1},"totalPages":${Math.ceil(count.total / limit)},"nextCursor":${cursor === null ? 'null' : JSON.stringify(cursor)}` +
    `${count.hidden === undefined ? '' : `,"hiddenPosts":${count.hidden}`}` +
    `${wildcards.length ? `,"wildcards":${JSON.stringify(wildcards)}` : ''}}`
  );
}

/** The media fields of a post's detail from its stored columns (a post, or an upload waiting for approval). */
export function mediaDetail(
  config: Deps['config'],
  p: Pick<NewPost, 'file_path' | 'thumb_path' | 'preview_path' | 'media_type' | 'mime' | 'file_size' | 'width' | 'height' | 'duration' | 'codecs'>,
) {
  return {
    imageUrl: mediaUrl(config, p.file_path),
    thumbnail: mediaUrl(config, p.thumb_path),
    previewUrl: p.preview_path ? mediaUrl(config, p.preview_path) : null,
    mediaType: p.media_type as 'image' | 'video',
    mime: p.mime,
    fileSize: p.file_size,
    width: p.width,
    height: p.height,
    duration: p.duration ?? null,
    codecs: p.codecs ?? null,
  };
}

/**
 * A post's detail row, its tags' details (from `known` when it has them for the row's data
 * version) and whether the viewer likes and favours it (404 when there is no such post).
 */
async function detailRow(deps: Deps, rawId: string, viewer: Viewer | null, known?: KnownTagDetails): Promise<DetailRow> {
  const id = parseId(rawId, 'Post');
  const row = (await repo.findPost(deps.db, id)) ?? notFound('Post', rawId);
  const names = fromTagString(row.tag_string);
  const tags = (await known?.(deps.db, Number(row.version), names)) ?? (await repo.tagDetails(deps.db, names));
  return { row, names, tags, mine: await repo.viewerReactions(deps.db, id, viewer?.id ?? null) };
}

/** GET /api/posts/<id>'s answer as an object (`known`: see detailRow). */
export async function getPost(deps: Deps, rawId: string, viewer: Viewer | null = null, known?: KnownTagDetails) {
  const { row: p, names: tags, tags: details, mine } = await detailRow(deps, rawId, viewer, known);
  const children = p.children ? p.children.split(',') : [];
  return {
    id: String(p.id),
    title: p.title,
    content: p.description,
    ...mediaDetail(deps.config, p),
    stats: { likes: p.like_count, comments: p.comment_count, favorites: p.favorite_count },
    contentRating: p.content_rating as Rating,
    author: { id: String(p.uploader_id), username: p.username, avatar: avatarUrl(deps.config, p.avatar_path) },
    tags,
    tagDetails: details,
    createdAt: iso(p.created_at),
    updatedAt: iso(p.updated_at),
    liked: mine.liked,
    favorited: mine.favorited,
    source: p.source,
    parentId: p.parent_id === null ? null : String(p.parent_id),
    children,
  };
}

/** getPost's answer written as JSON bytes, key for key what the PostDetail schema's serializer writes of it (post-detail-bytes.ts). */
export async function getPostBytes(deps: Deps, rawId: string, viewer: Viewer | null, known: KnownTagDetails): Promise<Buffer> {
  return detailBytes(deps.config, await detailRow(deps, rawId, viewer, known));
}
