import type { Selectable } from 'kysely';
import type { PostsTable } from '../../db/types.ts';
import type { Static } from 'typebox';
import type { DanbooruPost } from './danbooru.schemas.ts';
import { writeDanbooruTime } from './danbooru-time.ts';
import { fromTagString } from '../posts/tag-string.ts';
import { JsonWriter, asciiBytes } from '../../core/json-bytes.ts';

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

const extOf = (path: string) => path.slice(path.lastIndexOf('.') + 1);

/** Thumbnails are made to fit 180x180 (Danbooru's name for that variant). */
const THUMB = 180;

/** Each category's fields, in the order Danbooru gives them. */
const STRING_FIELDS = CATEGORIES.map((c) => asciiBytes(`,"tag_string_${c}":`));
const COUNT_FIELDS = CATEGORIES.map((c) => asciiBytes(`,"tag_count_${c}":`));

/** The object's constant pieces, as bytes (JsonWriter.bytes), in the order they are written. */
const K = {
  id: asciiBytes('{"id":'),
  createdAt: asciiBytes(',"created_at":"'),
  updatedAt: asciiBytes('","updated_at":"'),
  uploaderId: asciiBytes('","uploader_id":'),
  uploaderName: asciiBytes(',"uploader_name":'),
  score: asciiBytes(',"score":'),
  upScore: asciiBytes(',"up_score":'),
  favCount: asciiBytes(',"down_score":0,"fav_count":'),
  source: asciiBytes(',"source":'),
  md5: asciiBytes(',"md5":'),
  rating: asciiBytes(',"rating":"'),
  afterRating: asciiBytes('",'),
  fileExt: asciiBytes(',"file_ext":'),
  fileSize: asciiBytes(',"file_size":'),
  tagString: asciiBytes(',"tag_string":'),
  tagCount: asciiBytes(',"tag_count":'),
  parentId: asciiBytes(',"parent_id":'),
  null: asciiBytes('null'),
  children: asciiBytes(',"has_children":true,"has_active_children":true'),
  noChildren: asciiBytes(',"has_children":false,"has_active_children":false'),
  large: asciiBytes(',"has_large":true'),
  noLarge: asciiBytes(',"has_large":false'),
  fileUrl: asciiBytes(',"is_pending":false,"is_flagged":false,"is_deleted":false,"is_banned":false,"file_url":'),
  largeFileUrl: asciiBytes(',"large_file_url":'),
  previewFileUrl: asciiBytes(',"preview_file_url":'),
  mediaAsset: asciiBytes(',"media_asset":{"id":'),
  comma: asciiBytes(','),
  duration: asciiBytes(',"duration":'),
  thumbVariant: asciiBytes(',"variants":[{"type":"180x180","url":'),
  width: asciiBytes(',"width":'),
  height: asciiBytes(',"height":'),
  variantEnd: asciiBytes('},'),
  sampleVariant: asciiBytes('{"type":"sample","url":'),
  originalVariant: asciiBytes('{"type":"original","url":'),
  lastCommentedAt: asciiBytes('}]},"last_comment_bumped_at":null,"last_commented_at":'),
  quote: asciiBytes('"'),
  end: asciiBytes(',"last_noted_at":null,"approver_id":null,"pixiv_id":null,"bit_flags":0}'),
  imageWidth: asciiBytes('"image_width":'),
  imageHeight: asciiBytes(',"image_height":'),
};
/** Danbooru's rating letters for ours, as bytes. */
const RATING: Record<'safe' | 'sketchy' | 'unsafe', Uint8Array> = {
  safe: asciiBytes('g' satisfies DanbooruPostObject['rating']),
  sketchy: asciiBytes('q' satisfies DanbooruPostObject['rating']),
  unsafe: asciiBytes('e' satisfies DanbooruPostObject['rating']),
};

/** The rating's letter (an unknown rating is q); compared, not looked up by name (a lookup by a text read from the database looks the text up among V8's names first). */
function ratingBytes(rating: string): Uint8Array {
  return rating === 'safe' ? RATING.safe : rating === 'unsafe' ? RATING.unsafe : RATING.sketchy;
}

/**
 * A post as Danbooru's clients read it, written as JSON into `w`. `root` is where its media are
 * (absolute, ending in `/`), as rootBytes writes it; `categories` gives each tag's category (a missing tag is general).
 * Written piece by piece into the answer's bytes, not built as an object or a text: a page of 200
 * is some 400 kB, and the objects, texts and their collection were most of such a page's time.
 * Its constant pieces are bytes made once, and a text it writes twice is copied from its first.
 */
function writeDanbooruPost(w: JsonWriter, p: PostRow, root: Uint8Array, categories: Map<string, string>): void {
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
  w.bytes(K.id);
  w.number(p.id);
  w.bytes(K.createdAt);
  writeDanbooruTime(w, Number(p.created_at));
  w.bytes(K.updatedAt);
  writeDanbooruTime(w, Number(p.updated_at));
  w.bytes(K.uploaderId);
  w.number(p.uploader_id);
  w.bytes(K.uploaderName);
  w.string(p.uploader_name ?? '');
  w.bytes(K.score);
  w.number(p.like_count);
  w.bytes(K.upScore);
  w.number(p.like_count);
  w.bytes(K.favCount);
  w.number(p.favorite_count);
  w.bytes(K.source);
  w.string(p.source ?? '');
  w.bytes(K.md5);
  const md5 = written(w, p.md5 ?? '');
  w.bytes(K.rating);
  w.bytes(ratingBytes(p.content_rating));
  w.bytes(K.afterRating);
  writeSize(w, p);
  w.bytes(K.fileExt);
  const ext = written(w, fileExt);
  w.bytes(K.fileSize);
  w.number(p.file_size);
  w.bytes(K.tagString);
  const tagString = written(w, p.tag_string);
  const count = names ? names.length : countNames(p.tag_string);
  for (let c = 0; c < CATEGORIES.length; c++) {
    w.bytes(STRING_FIELDS[c]);
    if (byCategory) w.string(byCategory[c].join(' '));
    else if (c === 0) w.again(tagString[0], tagString[1]);
    else w.string('');
  }
  w.bytes(K.tagCount);
  w.number(count);
  for (let c = 0; c < CATEGORIES.length; c++) {
    w.bytes(COUNT_FIELDS[c]);
    w.number(byCategory ? byCategory[c].length : c === 0 ? count : 0);
  }
  w.bytes(K.parentId);
  w.numberOrNull(p.parent_id);
  w.bytes(p.has_children ? K.children : K.noChildren);
  w.bytes(hasSample ? K.large : K.noLarge);
  w.bytes(K.fileUrl);
  const original = writeUrl(w, root, p.file_path);
  w.bytes(K.largeFileUrl);
  let sample = original;
  if (hasSample) sample = writeUrl(w, root, p.preview_path!);
  else w.again(original[0], original[1]);
  w.bytes(K.previewFileUrl);
  const thumb = writeUrl(w, root, p.thumb_path);
  w.bytes(K.mediaAsset);
  w.number(p.id);
  w.bytes(K.md5);
  w.again(md5[0], md5[1]);
  w.bytes(K.fileExt);
  w.again(ext[0], ext[1]);
  w.bytes(K.fileSize);
  w.number(p.file_size);
  w.bytes(K.comma);
  writeSize(w, p);
  w.bytes(K.duration);
  w.numberOrNull(p.duration);
  w.bytes(K.thumbVariant);
  w.again(thumb[0], thumb[1]);
  const scale = Math.min(1, THUMB / Math.max(p.width, p.height, 1));
  w.bytes(K.width);
  w.number(Math.round(p.width * scale));
  w.bytes(K.height);
  w.number(Math.round(p.height * scale));
  w.bytes(K.fileExt);
  w.string(extOf(p.thumb_path));
  w.bytes(K.variantEnd);
  if (hasSample) {
    w.bytes(K.sampleVariant);
    w.again(sample[0], sample[1]);
    w.bytes(K.width);
    w.number(p.width);
    w.bytes(K.height);
    w.number(p.height);
    w.bytes(K.fileExt);
    w.string(extOf(p.preview_path!));
    w.bytes(K.variantEnd);
  }
  w.bytes(K.originalVariant);
  w.again(original[0], original[1]);
  w.bytes(K.width);
  w.number(p.width);
  w.bytes(K.height);
  w.number(p.height);
  w.bytes(K.fileExt);
  w.again(ext[0], ext[1]);
  w.bytes(K.lastCommentedAt);
  if (p.last_commented_at === null) w.bytes(K.null);
  else {
    w.bytes(K.quote);
    writeDanbooruTime(w, Number(p.last_commented_at));
    w.bytes(K.quote);
  }
  w.bytes(K.end);
}

/** Posts in the order given, to be written as a JSON array of Danbooru's objects (a page of posts.json). */
export class DanbooruPostArray {
  /** The media root as written in the page's URLs, made once for all its posts. */
  private readonly root: Uint8Array;

  constructor(
    readonly rows: PostRow[],
    mediaRoot: string,
    private readonly categories: Map<string, string>,
  ) {
    this.root = rootBytes(mediaRoot);
  }

  write(w: JsonWriter): void {
    w.raw('[');
    for (let i = 0; i < this.rows.length; i++) {
      if (i > 0) w.raw(',');
      writeDanbooruPost(w, this.rows[i], this.root, this.categories);
    }
    w.raw(']');
  }

  /** The `i`th post's object as JSON text. */
  json(i: number): string {
    return postJson(this.rows[i], this.root, this.categories);
  }
}

/** The post as JSON text (one post: GET /posts/<id>.json). */
export function danbooruPostJson(p: PostRow, mediaRoot: string, categories: Map<string, string>): string {
  return postJson(p, rootBytes(mediaRoot), categories);
}

function postJson(p: PostRow, root: Uint8Array, categories: Map<string, string>): string {
  const w = new JsonWriter();
  writeDanbooruPost(w, p, root, categories);
  return w.buffer.toString('utf8', 0, w.at);
}

const CATEGORY_INDEX = new Map<string, number>(CATEGORIES.map((c, i) => [c, i]));

function writeSize(w: JsonWriter, p: PostRow): void {
  w.bytes(K.imageWidth);
  w.number(p.width);
  w.bytes(K.imageHeight);
  w.number(p.height);
}

/** A JSON string; gives where its bytes start and end, to be written again. */
function written(w: JsonWriter, text: string): [number, number] {
  const start = w.at;
  w.string(text);
  return [start, w.at];
}

/** A media URL as a JSON string; gives where its bytes start and end, to be written again. */
function writeUrl(w: JsonWriter, root: Uint8Array, path: string): [number, number] {
  const start = w.at;
  w.bytes(K.quote);
  w.bytes(root);
  w.inString(path);
  w.bytes(K.quote);
  return [start, w.at];
}

/** The media root as it is written inside a JSON string. */
function rootBytes(mediaRoot: string): Uint8Array {
  const w = new JsonWriter();
  w.inString(mediaRoot);
  return w.buffer.subarray(0, w.at);
}

/** How many names a tag string holds (one space between two). */
function countNames(tagString: string): number {
  if (tagString === '') return 0;
  let n = 1;
  for (let i = tagString.indexOf(' '); i >= 0; i = tagString.indexOf(' ', i + 1)) n++;
  return n;
}
