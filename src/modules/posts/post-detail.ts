import type { Deps, Viewer } from '../../core/deps.ts';
import { notFound } from '../../core/errors.ts';
import { avatarUrl, mediaUrl } from '../../core/media-paths.ts';
import { iso, type Rating } from '../../core/schemas.ts';
import * as repo from './posts.repo.ts';
import { parseId } from '../../core/ids.ts';
import { fromTagString } from './tag-string.ts';
import { type DetailRow, detailBytes } from './post-detail-bytes.ts';
import type { KnownTagDetails } from './tag-details.ts';
import type { NewPost } from '../../db/types.ts';

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
