import type { Selectable } from 'kysely';
import type { PostsTable } from '../../db/types.ts';
import type { Static } from 'typebox';
import type { DanbooruPost } from './danbooru.schemas.ts';

export type DanbooruPostObject = Static<typeof DanbooruPost>;

/** The columns a Danbooru post object is made of. */
export type PostRow = Pick<
  Selectable<PostsTable>,
  | 'id'
  | 'uploader_id'
  | 'content_rating'
  | 'media_type'
  | 'file_size'
  | 'width'
  | 'height'
  | 'duration'
  | 'md5'
  | 'file_path'
  | 'thumb_path'
  | 'preview_path'
  | 'like_count'
  | 'favorite_count'
  | 'created_at'
  | 'updated_at'
  | 'tag_string'
> & { uploader_name: string | null; last_commented_at: number | null };

export const CATEGORIES = ['general', 'artist', 'copyright', 'character', 'meta'] as const;

const LETTER: Record<string, DanbooruPostObject['rating']> = { safe: 'g', sketchy: 'q', unsafe: 'e' };

/** Danbooru's time format: `2024-01-02T03:04:05.678+00:00`. */
export const danbooruTime = (ms: number) => new Date(ms).toISOString().replace('Z', '+00:00');

const extOf = (path: string) => path.slice(path.lastIndexOf('.') + 1);

/** Thumbnails are made to fit 180x180 (Danbooru's name for that variant). */
const THUMB = 180;

/**
 * A post as Danbooru's clients read it. `mediaRoot` (absolute, ending in `/`) is where its
 * media are; `categories` gives each tag's category (a missing tag is general).
 */
export function danbooruPost(p: PostRow, mediaRoot: string, categories: Map<string, string>): DanbooruPostObject {
  const url = (path: string) => mediaRoot + path;
  const names = p.tag_string.split(' ').filter(Boolean);
  const byCategory = Object.fromEntries(CATEGORIES.map((c) => [c, [] as string[]]));
  for (const n of names) byCategory[categories.get(n) ?? 'general']?.push(n);
  const fileExt = extOf(p.file_path);
  const scale = Math.min(1, THUMB / Math.max(p.width, p.height, 1));
  const variants: DanbooruPostObject['media_asset']['variants'] = [
    {
      type: '180x180' as const,
      url: url(p.thumb_path),
      width: Math.round(p.width * scale),
      height: Math.round(p.height * scale),
      file_ext: extOf(p.thumb_path),
    },
    ...(p.preview_path ? [{ type: 'sample' as const, url: url(p.preview_path), width: p.width, height: p.height, file_ext: extOf(p.preview_path) }] : []),
    { type: 'original', url: url(p.file_path), width: p.width, height: p.height, file_ext: fileExt },
  ];
  return {
    id: p.id,
    created_at: danbooruTime(p.created_at),
    updated_at: danbooruTime(p.updated_at),
    uploader_id: p.uploader_id,
    uploader_name: p.uploader_name ?? '',
    score: p.like_count,
    up_score: p.like_count,
    down_score: 0,
    fav_count: p.favorite_count,
    source: '',
    md5: p.md5 ?? '',
    rating: LETTER[p.content_rating] ?? 'q',
    image_width: p.width,
    image_height: p.height,
    file_ext: fileExt,
    file_size: p.file_size,
    tag_string: names.join(' '),
    tag_string_general: byCategory.general.join(' '),
    tag_string_artist: byCategory.artist.join(' '),
    tag_string_copyright: byCategory.copyright.join(' '),
    tag_string_character: byCategory.character.join(' '),
    tag_string_meta: byCategory.meta.join(' '),
    tag_count: names.length,
    tag_count_general: byCategory.general.length,
    tag_count_artist: byCategory.artist.length,
    tag_count_copyright: byCategory.copyright.length,
    tag_count_character: byCategory.character.length,
    tag_count_meta: byCategory.meta.length,
    parent_id: null,
    has_children: false,
    has_active_children: false,
    has_large: p.preview_path !== null,
    is_pending: false,
    is_flagged: false,
    is_deleted: false,
    is_banned: false,
    file_url: url(p.file_path),
    large_file_url: url(p.preview_path ?? p.file_path),
    preview_file_url: url(p.thumb_path),
    media_asset: {
      id: p.id,
      md5: p.md5 ?? '',
      file_ext: fileExt,
      file_size: p.file_size,
      image_width: p.width,
      image_height: p.height,
      duration: p.duration,
      variants,
    },
    last_comment_bumped_at: null,
    last_commented_at: p.last_commented_at === null ? null : danbooruTime(p.last_commented_at),
    last_noted_at: null,
    approver_id: null,
    pixiv_id: null,
    bit_flags: 0,
  };
}
