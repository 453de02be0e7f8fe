import type { Config } from '../../config.ts';
import { asciiBytes, JsonWriter } from '../../core/json-bytes.ts';
import { avatarUrl, mediaUrl } from '../../core/media-paths.ts';
import { iso, pageBytes } from '../../core/schemas.ts';
import { FIELD_SEPARATOR } from '../../db/engine.ts';
import type { findPost } from './posts.repo.ts';
import { fromTagString } from './tag-string.ts';

/** A post's detail row and whether the viewer likes and favours it. */
export interface DetailRow {
  row: NonNullable<Awaited<ReturnType<typeof findPost>>>;
  mine: { liked: boolean; favorited: boolean };
}

const key = (name: string, first = false) => asciiBytes(`${first ? '{' : ','}"${name}":`);
const K = {
  id: key('id', true),
  title: key('title'),
  content: key('content'),
  imageUrl: key('imageUrl'),
  thumbnail: key('thumbnail'),
  previewUrl: key('previewUrl'),
  mediaType: key('mediaType'),
  mime: key('mime'),
  fileSize: key('fileSize'),
  width: key('width'),
  height: key('height'),
  duration: key('duration'),
  codecs: key('codecs'),
  stats: asciiBytes(',"stats":{"likes":'),
  comments: key('comments'),
  favorites: key('favorites'),
  contentRating: asciiBytes('},"contentRating":'),
  author: asciiBytes(',"author":{"id":'),
  username: key('username'),
  avatar: key('avatar'),
  tags: asciiBytes('},"tags":['),
  tagDetails: asciiBytes('],"tagDetails":['),
  name: key('name', true),
  category: key('category'),
  postsCount: key('postsCount'),
  createdAt: asciiBytes('],"createdAt":'),
  updatedAt: key('updatedAt'),
  liked: key('liked'),
  favorited: key('favorited'),
  source: key('source'),
  parentId: key('parentId'),
  children: asciiBytes(',"children":['),
};
const NULL = asciiBytes('null');
const TRUE = asciiBytes('true');
const FALSE = asciiBytes('false');

/**
 * A post's detail (getPost) as JSON bytes written straight from its row: no object a field, no
 * text to serialize and encode again. Keys in the PostDetail schema's order, values as its
 * serializer writes them (posts.detail-bytes.test.ts holds the two together). In a buffer of
 * pageBytes, which sendJsonText gives back.
 */
export function detailBytes(config: Pick<Config, 'mediaPublicUrl'>, { row: p, mine }: DetailRow): Buffer {
  const w = new JsonWriter(pageBytes.take(4096), pageBytes);
  w.bytes(K.id);
  idString(w, p.id);
  w.bytes(K.title);
  w.string(p.title);
  w.bytes(K.content);
  w.string(p.description);
  w.bytes(K.imageUrl);
  w.string(mediaUrl(config, p.file_path));
  w.bytes(K.thumbnail);
  w.string(mediaUrl(config, p.thumb_path));
  w.bytes(K.previewUrl);
  orNull(w, p.preview_path ? mediaUrl(config, p.preview_path) : null);
  w.bytes(K.mediaType);
  w.string(p.media_type);
  w.bytes(K.mime);
  w.string(p.mime);
  w.bytes(K.fileSize);
  w.number(Number(p.file_size));
  w.bytes(K.width);
  w.number(p.width);
  w.bytes(K.height);
  w.number(p.height);
  w.bytes(K.duration);
  if (p.duration === null || p.duration === undefined) w.bytes(NULL);
  else w.number(p.duration);
  w.bytes(K.codecs);
  orNull(w, p.codecs ?? null);
  w.bytes(K.stats);
  w.number(p.like_count);
  w.bytes(K.comments);
  w.number(p.comment_count);
  w.bytes(K.favorites);
  w.number(p.favorite_count);
  w.bytes(K.contentRating);
  w.string(p.content_rating);
  w.bytes(K.author);
  idString(w, p.uploader_id);
  w.bytes(K.username);
  w.string(p.username);
  w.bytes(K.avatar);
  w.string(avatarUrl(config, p.avatar_path));
  const tags = fromTagString(p.tag_string);
  w.bytes(K.tags);
  tags.forEach((name, i) => {
    if (i > 0) w.byte(COMMA);
    w.string(name);
  });
  w.bytes(K.tagDetails);
  writeTagDetails(w, tags, p.tag_rows);
  w.bytes(K.createdAt);
  w.string(iso(p.created_at));
  w.bytes(K.updatedAt);
  w.string(iso(p.updated_at));
  w.bytes(K.liked);
  w.bytes(mine.liked ? TRUE : FALSE);
  w.bytes(K.favorited);
  w.bytes(mine.favorited ? TRUE : FALSE);
  w.bytes(K.source);
  orNull(w, p.source);
  w.bytes(K.parentId);
  if (p.parent_id === null) w.bytes(NULL);
  else idString(w, p.parent_id);
  w.bytes(K.children);
  if (p.children) {
    p.children.split(',').forEach((child, i) => {
      if (i > 0) w.byte(COMMA);
      w.string(child);
    });
  }
  w.raw(']}');
  return w.buffer.subarray(0, w.at);
}

const COMMA = 0x2c;
const QUOTE = 0x22;

function idString(w: JsonWriter, id: number): void {
  w.byte(QUOTE);
  w.number(Number(id));
  w.byte(QUOTE);
}

function orNull(w: JsonWriter, text: string | null): void {
  if (text === null) w.bytes(NULL);
  else w.string(text);
}

/**
 * tagDetails in the order of `names` from the detail row's `tag_rows` (name, category and count,
 * FIELD_SEPARATOR between them, commas between tags): a tag it lacks is general with no posts,
 * as tagDetailsOf has it.
 */
function writeTagDetails(w: JsonWriter, names: string[], tagRows: string | null): void {
  const rows = tagRows ? tagRows.split(',') : [];
  const at = new Map<string, number>();
  rows.forEach((row, i) => at.set(row.slice(0, row.indexOf(FIELD_SEPARATOR)), i));
  names.forEach((name, i) => {
    if (i > 0) w.byte(COMMA);
    w.bytes(K.name);
    w.string(name);
    w.bytes(K.category);
    const index = at.get(name);
    if (index === undefined) {
      w.raw('"general","postsCount":0}');
      return;
    }
    const row = rows[index];
    const first = row.indexOf(FIELD_SEPARATOR);
    const second = row.indexOf(FIELD_SEPARATOR, first + 1);
    w.string(row.slice(first + 1, second));
    w.bytes(K.postsCount);
    w.number(Number(row.slice(second + 1)) || 0);
    w.byte(0x7d);
  });
}
