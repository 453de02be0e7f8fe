import type { TagCategory } from '../../../core/tag-categories.ts';
import type { ImportItem } from '../import-item.ts';
import { blankItem, categorized, idText, type Json, type Media, md5, num, poolRef, rating, source, text, typedTags, words } from './fields.ts';

/**
 * gallery-dl's metadata of a Moebooru post (yande.re, konachan, sakugabooru, lolibooru): the
 * board's post JSON (tags one space-separated string, `created_at` in unix seconds, the uploader
 * as `author`), plus `category`; with the `tags` option the tags by kind as `tags_<kind>`
 * strings read from the post's page; from the pool extractor the pool's id (`pool`, no name, no place).
 */

/** Moebooru's tag kinds: a circle is a group of artists; faults (jpeg artifacts, scan) are about the file. */
const KINDS: Record<string, TagCategory> = {
  general: 'general',
  artist: 'artist',
  circle: 'artist',
  copyright: 'copyright',
  character: 'character',
  faults: 'meta',
  meta: 'meta',
};

export function readMoebooru(data: Json, media: Media): ImportItem | string {
  const id = idText(data.id);
  if (!id) return 'the Moebooru sidecar has no post id';
  const item = blankItem(media, text(data.category) ?? 'moebooru', id);
  item.md5 = md5(data.md5);
  item.tags = categorized(words(data.tags), typedTags(data, KINDS));
  item.rating = rating(data.rating);
  item.source = source(data.source);
  const seconds = num(data.created_at);
  item.createdAt = seconds !== null && seconds > 0 ? seconds * 1000 : null;
  item.parentOriginId = idText(data.parent_id);
  item.score = num(data.score);
  item.favCount = num(data.fav_count);
  item.uploader = text(data.author);
  const pool = poolRef(data.pool, null);
  if (pool) item.pools.push(pool);
  return item;
}
