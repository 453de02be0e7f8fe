import type { PostRow as PostsRow } from '../../db/types.ts';
import type { Static } from 'typebox';
import type { DanbooruPost } from './danbooru.schemas.ts';
import { writeDanbooruTime } from './danbooru-time.ts';
import { fromTagString } from '../posts/tag-string.ts';
import { JsonWriter, asciiBytes } from '../../core/json-bytes.ts';
import { FIELD_SEPARATOR } from '../../db/engine.ts';

export type DanbooruPostObject = Static<typeof DanbooruPost>;

/** A post's fields by name, as rowText writes them into a row's text. */
export type PostRow = Pick<
  PostsRow,
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
> & { last_commented_at: number | null; has_children: boolean };

/**
 * The fields of a row's text, in order: what danbooru-posts.ts reads of a post as one text
 * (FIELD_SEPARATOR between them, NULL as nothing, has_children as 1 or 0). Anything after them
 * (the data version) is not the post's.
 */
export const ROW_FIELDS = [
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
] as const satisfies readonly (keyof PostRow)[];

/** A post's fields as the text of its row (tests, and anything that has them as an object). */
export function rowText(p: PostRow): string {
  return ROW_FIELDS.map((f) => (f === 'has_children' ? (p[f] ? '1' : '0') : (p[f] ?? ''))).join(FIELD_SEPARATOR);
}

export const CATEGORIES = ['general', 'artist', 'copyright', 'character', 'meta'] as const;

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
  empty: asciiBytes('""'),
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

/** The rating's letter (an unknown rating is q), for the text from `start` to `end`; compared in place, with no text cut out. */
function ratingBytes(text: string, start: number, end: number): Uint8Array {
  if (end - start === 4 && text.startsWith('safe', start)) return RATING.safe;
  if (end - start === 6 && text.startsWith('unsafe', start)) return RATING.unsafe;
  return RATING.sketchy;
}

/** Each field's index in a row's text. */
const F = Object.fromEntries(ROW_FIELDS.map((f, i) => [f, i])) as { [K in (typeof ROW_FIELDS)[number]]: number };

/**
 * Where the fields of the row being written end (the separator after each), found once a row.
 * Shared: a row is written from start to end without a break, so one at a time uses it.
 */
const ends = new Int32Array(ROW_FIELDS.length);

/** Finds the fields of `text` (ends); a text with too few is not a row of ROW_FIELDS. */
function locate(text: string): void {
  let from = 0;
  for (let i = 0; i < ends.length; i++) {
    const sep = text.indexOf(FIELD_SEPARATOR, from);
    // The last field ends at the text's end, or at the data version that follows it.
    ends[i] = sep < 0 && i === ends.length - 1 ? text.length : sep;
    if (ends[i] < 0) throw new Error(`a post's row has ${i + 1} fields, not ${ends.length}`);
    from = ends[i] + 1;
  }
}

const startOf = (i: number) => (i === 0 ? 0 : ends[i - 1] + 1);

/** The whole number from `start` to `end` of `text`, read digit by digit (anything else through Number). */
function intIn(text: string, start: number, end: number): number {
  let i = start;
  const negative = text.charCodeAt(i) === MINUS;
  if (negative) i++;
  if (i === end) return Number(text.slice(start, end));
  let n = 0;
  for (; i < end; i++) {
    const digit = text.charCodeAt(i) - ZERO;
    if (digit < 0 || digit > 9) return Number(text.slice(start, end));
    n = n * 10 + digit;
  }
  return negative ? -n : n;
}

/**
 * The number in field `field` of a row's text, or what was read with it (`version`: the data
 * version, the field after the post's; `tagsChanged`: the last tag history entry, after that),
 * found without locating the rest (the page's ids and uploaders).
 */
export function rowNumber(text: string, field: (typeof ROW_FIELDS)[number] | 'version' | 'tagsChanged'): number {
  const i = field === 'version' ? ROW_FIELDS.length : field === 'tagsChanged' ? ROW_FIELDS.length + 1 : F[field];
  let start = 0;
  for (let k = 0; k < i; k++) start = text.indexOf(FIELD_SEPARATOR, start) + 1;
  const end = text.indexOf(FIELD_SEPARATOR, start);
  return intIn(text, start, end < 0 ? text.length : end);
}

/** The number in field `i` of the located row. */
const num = (text: string, i: number) => intIn(text, startOf(i), ends[i]);
/** The number in field `i` of the located row, or null when it is empty (NULL). */
const numOrNull = (text: string, i: number) => (startOf(i) === ends[i] ? null : num(text, i));
/** Where field `i`'s file extension starts: after its last dot (the whole field without one). */
const extStart = (text: string, i: number) => {
  const dot = text.lastIndexOf('.', ends[i] - 1);
  return dot < startOf(i) ? startOf(i) : dot + 1;
};

/**
 * A post as Danbooru's clients read it, written as JSON into `w` from its row's text (ROW_FIELDS)
 * and its uploader's name. `root` is where its media are (absolute, ending in `/`), as rootBytes
 * writes it; `categories` gives each tag's category (a missing tag is general).
 * Written piece by piece into the answer's bytes, not built as an object or a text: a page of 200
 * is some 400 kB, and the objects, texts and their collection were most of such a page's time.
 * The fields are read where they lie in the row's text: cutting each row into its fields and an
 * object made a page's rows live long enough to be collected as old objects.
 * Its constant pieces are bytes made once, and a text it writes twice is copied from its first.
 */
function writeDanbooruPost(w: JsonWriter, text: string, uploaderName: string, root: Uint8Array, categories: ReadonlyMap<string, string>): void {
  locate(text);
  const tagsStart = startOf(F.tag_string);
  const tagsEnd = ends[F.tag_string];
  // The tag string is the names sorted and joined by one space (tag-string.ts): most posts have
  // general tags only, and then their lists are the whole string, and no name need be cut out.
  const names = categories.size === 0 ? null : fromTagString(text.slice(tagsStart, tagsEnd));
  let byCategory: string[][] | null = null;
  if (names?.some((n) => categories.has(n))) {
    byCategory = [[], [], [], [], []];
    for (const n of names) byCategory[CATEGORY_INDEX.get(categories.get(n) ?? 'general') ?? 0].push(n);
  }
  const width = num(text, F.width);
  const height = num(text, F.height);
  const previewStart = startOf(F.preview_path);
  const hasSample = ends[F.preview_path] > previewStart;
  const id = num(text, F.id);
  w.bytes(K.id);
  w.number(id);
  w.bytes(K.createdAt);
  writeDanbooruTime(w, num(text, F.created_at));
  w.bytes(K.updatedAt);
  writeDanbooruTime(w, num(text, F.updated_at));
  w.bytes(K.uploaderId);
  w.number(num(text, F.uploader_id));
  w.bytes(K.uploaderName);
  w.string(uploaderName);
  const likes = num(text, F.like_count);
  w.bytes(K.score);
  w.number(likes);
  w.bytes(K.upScore);
  w.number(likes);
  w.bytes(K.favCount);
  w.number(num(text, F.favorite_count));
  w.bytes(K.source);
  w.stringIn(text, startOf(F.source), ends[F.source]);
  w.bytes(K.md5);
  const md5 = w.at;
  w.stringIn(text, startOf(F.md5), ends[F.md5]);
  const md5End = w.at;
  w.bytes(K.rating);
  w.bytes(ratingBytes(text, startOf(F.content_rating), ends[F.content_rating]));
  w.bytes(K.afterRating);
  writeSize(w, width, height);
  w.bytes(K.fileExt);
  const ext = w.at;
  w.stringIn(text, extStart(text, F.file_path), ends[F.file_path]);
  const extEnd = w.at;
  w.bytes(K.fileSize);
  const fileSize = num(text, F.file_size);
  w.number(fileSize);
  w.bytes(K.tagString);
  const tagString = w.at;
  w.stringIn(text, tagsStart, tagsEnd);
  const tagStringEnd = w.at;
  const count = names ? names.length : countNames(text, tagsStart, tagsEnd);
  for (let c = 0; c < CATEGORIES.length; c++) {
    w.bytes(STRING_FIELDS[c]);
    if (byCategory) w.string(byCategory[c].join(' '));
    else if (c === 0) w.again(tagString, tagStringEnd);
    else w.bytes(K.empty);
  }
  w.bytes(K.tagCount);
  w.number(count);
  for (let c = 0; c < CATEGORIES.length; c++) {
    w.bytes(COUNT_FIELDS[c]);
    w.number(byCategory ? byCategory[c].length : c === 0 ? count : 0);
  }
  w.bytes(K.parentId);
  w.numberOrNull(numOrNull(text, F.parent_id));
  w.bytes(text.charCodeAt(startOf(F.has_children)) === ONE ? K.children : K.noChildren);
  w.bytes(hasSample ? K.large : K.noLarge);
  w.bytes(K.fileUrl);
  const original = w.at;
  writeUrl(w, root, text, startOf(F.file_path), ends[F.file_path]);
  const originalEnd = w.at;
  w.bytes(K.largeFileUrl);
  let sample = original;
  let sampleEnd = originalEnd;
  if (hasSample) {
    sample = w.at;
    writeUrl(w, root, text, previewStart, ends[F.preview_path]);
    sampleEnd = w.at;
  } else w.again(original, originalEnd);
  w.bytes(K.previewFileUrl);
  const thumb = w.at;
  writeUrl(w, root, text, startOf(F.thumb_path), ends[F.thumb_path]);
  const thumbEnd = w.at;
  w.bytes(K.mediaAsset);
  w.number(id);
  w.bytes(K.md5);
  w.again(md5, md5End);
  w.bytes(K.fileExt);
  w.again(ext, extEnd);
  w.bytes(K.fileSize);
  w.number(fileSize);
  w.bytes(K.comma);
  writeSize(w, width, height);
  w.bytes(K.duration);
  w.numberOrNull(numOrNull(text, F.duration));
  w.bytes(K.thumbVariant);
  w.again(thumb, thumbEnd);
  const scale = Math.min(1, THUMB / Math.max(width, height, 1));
  w.bytes(K.width);
  w.number(Math.round(width * scale));
  w.bytes(K.height);
  w.number(Math.round(height * scale));
  w.bytes(K.fileExt);
  w.stringIn(text, extStart(text, F.thumb_path), ends[F.thumb_path]);
  w.bytes(K.variantEnd);
  if (hasSample) {
    w.bytes(K.sampleVariant);
    w.again(sample, sampleEnd);
    w.bytes(K.width);
    w.number(width);
    w.bytes(K.height);
    w.number(height);
    w.bytes(K.fileExt);
    w.stringIn(text, extStart(text, F.preview_path), ends[F.preview_path]);
    w.bytes(K.variantEnd);
  }
  w.bytes(K.originalVariant);
  w.again(original, originalEnd);
  w.bytes(K.width);
  w.number(width);
  w.bytes(K.height);
  w.number(height);
  w.bytes(K.fileExt);
  w.again(ext, extEnd);
  w.bytes(K.lastCommentedAt);
  const commented = numOrNull(text, F.last_commented_at);
  if (commented === null) w.bytes(K.null);
  else {
    w.bytes(K.quote);
    writeDanbooruTime(w, commented);
    w.bytes(K.quote);
  }
  w.bytes(K.end);
}

/**
 * Posts in the order given, to be written as a JSON array of Danbooru's objects (a page of
 * posts.json): each row's text (ROW_FIELDS) and its uploader's name.
 */
export class DanbooruPostArray {
  /** The media root as written in the page's URLs, made once for all its posts. */
  private readonly root: Uint8Array;

  constructor(
    private readonly texts: string[],
    private readonly uploaderNames: string[],
    mediaRoot: string,
    private readonly categories: ReadonlyMap<string, string>,
  ) {
    this.root = rootBytes(mediaRoot);
  }

  get length(): number {
    return this.texts.length;
  }

  /** The last post first. */
  reverse(): void {
    this.texts.reverse();
    this.uploaderNames.reverse();
  }

  write(w: JsonWriter): void {
    w.raw('[');
    for (let i = 0; i < this.texts.length; i++) {
      if (i > 0) w.raw(',');
      writeDanbooruPost(w, this.texts[i], this.uploaderNames[i], this.root, this.categories);
    }
    w.raw(']');
  }

  /** The `i`th post's object as JSON text (one post: GET /posts/<id>.json). */
  json(i: number): string {
    const w = new JsonWriter();
    writeDanbooruPost(w, this.texts[i], this.uploaderNames[i], this.root, this.categories);
    return w.buffer.toString('utf8', 0, w.at);
  }
}

const CATEGORY_INDEX = new Map<string, number>(CATEGORIES.map((c, i) => [c, i]));
const MINUS = 0x2d;
const ZERO = 0x30;
const ONE = 0x31;

function writeSize(w: JsonWriter, width: number, height: number): void {
  w.bytes(K.imageWidth);
  w.number(width);
  w.bytes(K.imageHeight);
  w.number(height);
}

/** A media URL as a JSON string: the root, then the path from `start` to `end` of `text`. */
function writeUrl(w: JsonWriter, root: Uint8Array, text: string, start: number, end: number): void {
  w.bytes(K.quote);
  w.bytes(root);
  w.inStringIn(text, start, end);
  w.bytes(K.quote);
}

/** The media root as it is written inside a JSON string. */
function rootBytes(mediaRoot: string): Uint8Array {
  const w = new JsonWriter();
  w.inString(mediaRoot);
  return w.buffer.subarray(0, w.at);
}

/**
 * How many names the tag string from `start` to `end` of `text` holds (one space between two).
 * indexOf finds each space natively, several times faster than reading the characters one by one.
 */
function countNames(text: string, start: number, end: number): number {
  if (end === start) return 0;
  let n = 1;
  for (let i = text.indexOf(' ', start); i !== -1 && i < end; i = text.indexOf(' ', i + 1)) n++;
  return n;
}
