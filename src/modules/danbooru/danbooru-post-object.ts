import type { Selectable } from 'kysely';
import type { PostsTable } from '../../db/types.ts';
import type { Static } from 'typebox';
import type { DanbooruPost } from './danbooru.schemas.ts';
import { writeDanbooruTime } from './danbooru-time.ts';
import { fromTagString } from '../posts/tag-string.ts';
import { JsonWriter } from '../../core/json-bytes.ts';

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

/** Each category's fields, in the order Danbooru gives them. */
const STRING_FIELDS = CATEGORIES.map((c) => `,"tag_string_${c}":`);
const COUNT_FIELDS = CATEGORIES.map((c) => `,"tag_count_${c}":`);

/**
 * A post as Danbooru's clients read it, written as JSON into `w`. `mediaRoot` (absolute, ending in
 * `/`) is where its media are; `categories` gives each tag's category (a missing tag is general).
 * Written piece by piece into the answer's bytes, not built as an object or a text: a page of 200
 * is some 400 kB, and the objects, texts and their collection were most of such a page's time.
 */
export function writeDanbooruPost(w: JsonWriter, p: PostRow, mediaRoot: string, categories: Map<string, string>): void {
  // The tag string is the names sorted and joined by one space (tag-string.ts): most posts have
  // general tags only, and then their lists are the whole string, and no name need be cut out.
  const names = categories.size === 0 ? null : fromTagString(p.tag_string);
  let byCategory: string[][] | null = null;
  if (names?.some((n) => categories.has(n))) {
    byCategory = [[], [], [], [], []];
    for (const n of names) byCategory[CATEGORY_INDEX.get(categories.get(n) ?? 'general') ?? 0].push(n);
  }
  const fileExt = extOf(p.file_path);
  const hasSample = p.preview_path !== null && p.preview_path !== '';
  w.raw('{"id":');
  w.number(p.id);
  w.raw(',"created_at":"');
  writeDanbooruTime(w, Number(p.created_at));
  w.raw('","updated_at":"');
  writeDanbooruTime(w, Number(p.updated_at));
  w.raw('","uploader_id":');
  w.number(p.uploader_id);
  w.raw(',"uploader_name":');
  w.string(p.uploader_name ?? '');
  w.raw(',"score":');
  w.number(p.like_count);
  w.raw(',"up_score":');
  w.number(p.like_count);
  w.raw(',"down_score":0,"fav_count":');
  w.number(p.favorite_count);
  w.raw(',"source":');
  w.string(p.source ?? '');
  w.raw(',"md5":');
  w.string(p.md5 ?? '');
  w.raw(',"rating":"');
  w.raw(LETTER[p.content_rating] ?? 'q');
  w.raw('",');
  writeSize(w, p);
  w.raw(',"file_ext":');
  w.string(fileExt);
  w.raw(',"file_size":');
  w.number(p.file_size);
  w.raw(',"tag_string":');
  w.string(p.tag_string);
  for (let c = 0; c < CATEGORIES.length; c++) {
    w.raw(STRING_FIELDS[c]);
    w.string(byCategory ? byCategory[c].join(' ') : c === 0 ? p.tag_string : '');
  }
  w.raw(',"tag_count":');
  w.number(names ? names.length : countNames(p.tag_string));
  for (let c = 0; c < CATEGORIES.length; c++) {
    w.raw(COUNT_FIELDS[c]);
    w.number(byCategory ? byCategory[c].length : c === 0 ? (names ? names.length : countNames(p.tag_string)) : 0);
  }
  w.raw(',"parent_id":');
  if (p.parent_id === null) w.raw('null');
  else w.number(p.parent_id);
  w.raw(p.has_children ? ',"has_children":true,"has_active_children":true' : ',"has_children":false,"has_active_children":false');
  w.raw(hasSample ? ',"has_large":true' : ',"has_large":false');
  w.raw(',"is_pending":false,"is_flagged":false,"is_deleted":false,"is_banned":false,"file_url":');
  const original = writeUrl(w, mediaRoot, p.file_path);
  w.raw(',"large_file_url":');
  let sample = original;
  if (hasSample) sample = writeUrl(w, mediaRoot, p.preview_path!);
  else w.again(original[0], original[1]);
  w.raw(',"preview_file_url":');
  const thumb = writeUrl(w, mediaRoot, p.thumb_path);
  w.raw(',"media_asset":{"id":');
  w.number(p.id);
  w.raw(',"md5":');
  w.string(p.md5 ?? '');
  w.raw(',"file_ext":');
  w.string(fileExt);
  w.raw(',"file_size":');
  w.number(p.file_size);
  w.raw(',');
  writeSize(w, p);
  w.raw(',"duration":');
  if (p.duration === null) w.raw('null');
  else w.number(p.duration);
  w.raw(',"variants":[{"type":"180x180","url":');
  w.again(thumb[0], thumb[1]);
  const scale = Math.min(1, THUMB / Math.max(p.width, p.height, 1));
  w.raw(',"width":');
  w.number(Math.round(p.width * scale));
  w.raw(',"height":');
  w.number(Math.round(p.height * scale));
  w.raw(',"file_ext":');
  w.string(extOf(p.thumb_path));
  w.raw('},');
  if (hasSample) {
    w.raw('{"type":"sample","url":');
    w.again(sample[0], sample[1]);
    w.raw(',"width":');
    w.number(p.width);
    w.raw(',"height":');
    w.number(p.height);
    w.raw(',"file_ext":');
    w.string(extOf(p.preview_path!));
    w.raw('},');
  }
  w.raw('{"type":"original","url":');
  w.again(original[0], original[1]);
  w.raw(',"width":');
  w.number(p.width);
  w.raw(',"height":');
  w.number(p.height);
  w.raw(',"file_ext":');
  w.string(fileExt);
  w.raw('}]},"last_comment_bumped_at":null,"last_commented_at":');
  if (p.last_commented_at === null) w.raw('null');
  else {
    w.raw('"');
    writeDanbooruTime(w, Number(p.last_commented_at));
    w.raw('"');
  }
  w.raw(',"last_noted_at":null,"approver_id":null,"pixiv_id":null,"bit_flags":0}');
}

/** Posts in the order given, to be written as a JSON array of Danbooru's objects (a page of posts.json). */
export class DanbooruPostArray {
  constructor(
    readonly rows: PostRow[],
    private readonly mediaRoot: string,
    private readonly categories: Map<string, string>,
  ) {}

  write(w: JsonWriter): void {
    w.raw('[');
    for (let i = 0; i < this.rows.length; i++) {
      if (i > 0) w.raw(',');
      writeDanbooruPost(w, this.rows[i], this.mediaRoot, this.categories);
    }
    w.raw(']');
  }

  /** The `i`th post's object as JSON text. */
  json(i: number): string {
    return danbooruPostJson(this.rows[i], this.mediaRoot, this.categories);
  }
}

/** The post as JSON text (one post: GET /posts/<id>.json). */
export function danbooruPostJson(p: PostRow, mediaRoot: string, categories: Map<string, string>): string {
  const w = new JsonWriter();
  writeDanbooruPost(w, p, mediaRoot, categories);
  return w.buffer.toString('utf8', 0, w.at);
}

const CATEGORY_INDEX = new Map<string, number>(CATEGORIES.map((c, i) => [c, i]));

function writeSize(w: JsonWriter, p: PostRow): void {
  w.raw('"image_width":');
  w.number(p.width);
  w.raw(',"image_height":');
  w.number(p.height);
}

/** A media URL as a JSON string; gives where its bytes start and end, to be written again. */
function writeUrl(w: JsonWriter, mediaRoot: string, path: string): [number, number] {
  const start = w.at;
  w.raw('"');
  w.inString(mediaRoot);
  w.inString(path);
  w.raw('"');
  return [start, w.at];
}

/** How many names a tag string holds (one space between two). */
function countNames(tagString: string): number {
  if (tagString === '') return 0;
  let n = 1;
  for (let i = tagString.indexOf(' '); i >= 0; i = tagString.indexOf(' ', i + 1)) n++;
  return n;
}
