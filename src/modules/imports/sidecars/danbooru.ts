import type { ImportItem } from '../import-item.ts';
import { blankItem, categorized, idText, isObject, isoTime, type Json, type Media, md5, num, poolRef, rating, source, text, words } from './fields.ts';

/**
 * gallery-dl's metadata of a Danbooru post (danbooru.donmai.us and its instances: atfbooru,
 * aibooru, or any other it was pointed at): Danbooru's own post JSON plus gallery-dl's `category`
 * (the instance's name, our origin), and from the pool extractor the pool (`pool`, its name with
 * spaces for underscores; no place in it: gallery-dl drops the pool's post_ids). The `metadata`
 * option adds `uploader` {name} and `artist_commentary`, which give the uploader and the title
 * and description.
 */
export function readDanbooru(data: Json, media: Media): ImportItem | string {
  const id = idText(data.id);
  if (!id) return 'the Danbooru sidecar has no post id';
  const item = blankItem(media, text(data.category) ?? 'danbooru', id);
  item.md5 = md5(data.md5);
  item.tags = categorized(words(data.tag_string), [
    [words(data.tag_string_artist), 'artist'],
    [words(data.tag_string_copyright), 'copyright'],
    [words(data.tag_string_character), 'character'],
    [words(data.tag_string_meta), 'meta'],
    [words(data.tag_string_general), 'general'],
  ]);
  item.rating = rating(data.rating);
  item.source = source(data.source);
  item.createdAt = isoTime(data.created_at);
  item.parentOriginId = idText(data.parent_id);
  item.score = num(data.score);
  item.favCount = num(data.fav_count);
  // Danbooru's post JSON names its uploader by id only; the name comes with the `metadata` option.
  item.uploader = (isObject(data.uploader) ? text(data.uploader.name) : null) ?? text(data.uploader_name);
  const commentary = isObject(data.artist_commentary) ? data.artist_commentary : {};
  // The artist's own words first: a translation is the community's, and often missing.
  item.title = text(commentary.original_title) ?? text(commentary.translated_title);
  item.description = text(commentary.original_description) ?? text(commentary.translated_description);
  const pool = isObject(data.pool) ? poolRef(data.pool.id, data.pool.name, null, data.pool.description) : null;
  if (pool) item.pools.push(pool);
  return item;
}
