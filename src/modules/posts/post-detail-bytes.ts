import type { Config } from '../../config.ts';
import { asciiBytes, JsonWriter } from '../../core/json-bytes.ts';
import { avatarUrl, mediaUrl } from '../../core/media-paths.ts';
import { iso, pageBytes } from '../../core/schemas.ts';
import type { findPost } from './posts.repo.ts';
import type { TagDetail } from './tag-details.ts';

/** A post's detail row, its tags (names in its order, and their details), and whether the viewer likes and favours it. */
export interface DetailRow {
  row: NonNullable<Awaited<ReturnType<typeof findPost>>>;
  names: string[];
  tags: TagDetail[];
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

/**
 * A post's detail (getPost) as JSON bytes written straight from its row: no object a field, no
 * text to serialize and encode again. Keys in the PostDetail schema's order, values as its
 * serializer writes them (posts.detail-bytes.test.ts holds the two together). In a buffer of
 * pageBytes, which sendJsonText gives back.
 */
export function detailBytes(config: Pick<Config, 'mediaPublicUrl'>, { row: p, names, tags, mine }: DetailRow): Buffer {
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
  w.stringOrNull(p.preview_path ? mediaUrl(config, p.preview_path) : null);
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
  w.numberOrNull(p.duration);
  w.bytes(K.codecs);
  w.stringOrNull(p.codecs);
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
  w.bytes(K.tags);
  names.forEach((name, i) => {
    if (i > 0) w.byte(COMMA);
    w.string(name);
  });
  w.bytes(K.tagDetails);
  tags.forEach((t, i) => {
    if (i > 0) w.byte(COMMA);
    w.bytes(K.name);
    w.string(t.name);
    w.bytes(K.category);
    w.string(t.category);
    w.bytes(K.postsCount);
    w.number(t.postsCount);
    w.byte(0x7d);
  });
  w.bytes(K.createdAt);
  w.string(iso(p.created_at));
  w.bytes(K.updatedAt);
  w.string(iso(p.updated_at));
  w.bytes(K.liked);
  w.boolean(mine.liked);
  w.bytes(K.favorited);
  w.boolean(mine.favorited);
  w.bytes(K.source);
  w.stringOrNull(p.source);
  w.bytes(K.parentId);
  w.stringOrNull(p.parent_id === null ? null : String(p.parent_id));
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
