import type { Selectable } from 'kysely';
import type { PostsTable } from '../../db/types.ts';
import type { Static } from 'typebox';
import type { DanbooruPost } from './danbooru.schemas.ts';
import { danbooruTime } from './danbooru-time.ts';
import { fromTagString } from '../posts/tag-string.ts';

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
  | 'source'
  | 'parent_id'
> & { uploader_name: string | null; last_commented_at: number | null; has_children: boolean };

export const CATEGORIES = ['general', 'artist', 'copyright', 'character', 'meta'] as const;

const LETTER: Record<string, DanbooruPostObject['rating']> = { safe: 'g', sketchy: 'q', unsafe: 'e' };

const extOf = (path: string) => path.slice(path.lastIndexOf('.') + 1);

/** Thumbnails are made to fit 180x180 (Danbooru's name for that variant). */
const THUMB = 180;

/** A JSON string literal. */
const str = JSON.stringify;

/**
 * A post as Danbooru's clients read it, as JSON text. `mediaRoot` (absolute, ending in `/`) is
 * where its media are; `categories` gives each tag's category (a missing tag is general).
 * Written as text, not built as an object and then serialized: a page of 200 is some 400 kB, and
 * the objects and their serializing were a third of such a page's time. The pieces are joined
 * once: a text grown piece by piece is a tree of hundreds of pieces that sending copies again.
 */
export function danbooruPostJson(p: PostRow, mediaRoot: string, categories: Map<string, string>): string {
  const base = str(mediaRoot).slice(0, -1);
  // The tag string is the names sorted and joined by one space (tag-string.ts): most posts have
  // general tags only, and then their lists are the whole string, and no name need be cut out.
  const tagString = str(p.tag_string);
  const names = categories.size === 0 ? null : fromTagString(p.tag_string);
  const count = names ? names.length : countNames(p.tag_string);
  let general = tagString;
  let counts = [count, 0, 0, 0, 0];
  let others = ['""', '""', '""', '""'];
  if (names?.some((n) => categories.has(n))) {
    const byCategory: string[][] = [[], [], [], [], []];
    for (const n of names) byCategory[CATEGORY_INDEX.get(categories.get(n) ?? 'general') ?? 0].push(n);
    general = str(byCategory[0].join(' '));
    counts = byCategory.map((list) => list.length);
    others = byCategory.slice(1).map((list) => str(list.join(' ')));
  }
  const fileExt = str(extOf(p.file_path));
  const scale = Math.min(1, THUMB / Math.max(p.width, p.height, 1));
  const original = urlJson(base, p.file_path);
  const thumb = urlJson(base, p.thumb_path);
  const preview = p.preview_path ? urlJson(base, p.preview_path) : null;
  const md5 = str(p.md5 ?? '');
  const size = `"image_width":${p.width},"image_height":${p.height}`;
  const sample = preview ? `{"type":"sample","url":${preview},"width":${p.width},"height":${p.height},"file_ext":${str(extOf(p.preview_path!))}},` : '';
  return [
    '{"id":',
    p.id,
    ',"created_at":"',
    danbooruTime(Number(p.created_at)),
    '","updated_at":"',
    danbooruTime(Number(p.updated_at)),
    '","uploader_id":',
    p.uploader_id,
    ',"uploader_name":',
    str(p.uploader_name ?? ''),
    ',"score":',
    p.like_count,
    ',"up_score":',
    p.like_count,
    ',"down_score":0,"fav_count":',
    p.favorite_count,
    ',"source":',
    str(p.source ?? ''),
    ',"md5":',
    md5,
    ',"rating":"',
    LETTER[p.content_rating] ?? 'q',
    '",',
    size,
    ',"file_ext":',
    fileExt,
    ',"file_size":',
    p.file_size,
    ',"tag_string":',
    tagString,
    ',"tag_string_general":',
    general,
    ',"tag_string_artist":',
    others[0],
    ',"tag_string_copyright":',
    others[1],
    ',"tag_string_character":',
    others[2],
    ',"tag_string_meta":',
    others[3],
    ',"tag_count":',
    count,
    ',"tag_count_general":',
    counts[0],
    ',"tag_count_artist":',
    counts[1],
    ',"tag_count_copyright":',
    counts[2],
    ',"tag_count_character":',
    counts[3],
    ',"tag_count_meta":',
    counts[4],
    ',"parent_id":',
    p.parent_id ?? 'null',
    ',"has_children":',
    p.has_children,
    ',"has_active_children":',
    p.has_children,
    ',"has_large":',
    preview !== null,
    ',"is_pending":false,"is_flagged":false,"is_deleted":false,"is_banned":false,"file_url":',
    original,
    ',"large_file_url":',
    preview ?? original,
    ',"preview_file_url":',
    thumb,
    ',"media_asset":{"id":',
    p.id,
    ',"md5":',
    md5,
    ',"file_ext":',
    fileExt,
    ',"file_size":',
    p.file_size,
    ',',
    size,
    ',"duration":',
    p.duration ?? 'null',
    ',"variants":[{"type":"180x180","url":',
    thumb,
    ',"width":',
    Math.round(p.width * scale),
    ',"height":',
    Math.round(p.height * scale),
    ',"file_ext":',
    str(extOf(p.thumb_path)),
    '},',
    sample,
    '{"type":"original","url":',
    original,
    ',"width":',
    p.width,
    ',"height":',
    p.height,
    ',"file_ext":',
    fileExt,
    '}]},"last_comment_bumped_at":null,"last_commented_at":',
    p.last_commented_at === null ? 'null' : `"${danbooruTime(Number(p.last_commented_at))}"`,
    ',"last_noted_at":null,"approver_id":null,"pixiv_id":null,"bit_flags":0}',
  ].join('');
}

const CATEGORY_INDEX = new Map<string, number>(CATEGORIES.map((c, i) => [c, i]));

/** A media URL as a JSON string: `base` is the JSON string of origin and media prefix without its closing quote. */
function urlJson(base: string, path: string): string {
  return base + str(path).slice(1);
}

/** How many names a tag string holds (one space between two). */
function countNames(tagString: string): number {
  if (tagString === '') return 0;
  let n = 1;
  for (let i = tagString.indexOf(' '); i >= 0; i = tagString.indexOf(' ', i + 1)) n++;
  return n;
}
