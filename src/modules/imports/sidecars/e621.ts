import type { TagCategory } from '../../../core/tag-categories.ts';
import type { ImportItem, ImportPoolRef } from '../import-item.ts';
import { blankItem, categorized, idText, isObject, isoTime, type Json, type Media, md5, num, poolRef, rating, source, text } from './fields.ts';

/**
 * gallery-dl's metadata of an e621 (or e926) post: e621's post JSON, tags split by kind in an
 * object, plus `category` and, from the pool extractor, the pool (`pool`) and the post's place in
 * it (`num`). With the `metadata` option `pools` holds the pools themselves, whose post_ids give
 * the place in each; without it, their ids.
 */

/** e621's tag kinds: ours by name; species, lore and invalid have no kind of ours and read as general. */
const KINDS: Record<string, TagCategory> = {
  general: 'general',
  species: 'general',
  lore: 'general',
  invalid: 'general',
  artist: 'artist',
  copyright: 'copyright',
  character: 'character',
  meta: 'meta',
};

const names = (v: unknown): string[] => (Array.isArray(v) ? v.filter((n): n is string => typeof n === 'string' && n !== '') : []);

function pools(data: Json, postId: string): ImportPoolRef[] {
  const refs = new Map<string, ImportPoolRef>();
  const add = (ref: ImportPoolRef | null) => {
    if (!ref) return;
    const had = refs.get(ref.key);
    refs.set(ref.key, { key: ref.key, name: had?.name ?? ref.name, position: had?.position ?? ref.position, description: had?.description ?? ref.description });
  };
  if (isObject(data.pool)) add(poolRef(data.pool.id, data.pool.name, data.num, data.pool.description));
  for (const p of Array.isArray(data.pools) ? data.pools : []) {
    if (!isObject(p)) add(poolRef(p, null));
    else {
      const at = Array.isArray(p.post_ids) ? p.post_ids.map(idText).indexOf(postId) : -1;
      add(poolRef(p.id, p.name, at >= 0 ? at + 1 : null, p.description));
    }
  }
  return [...refs.values()];
}

export function readE621(data: Json, media: Media): ImportItem | string {
  const id = idText(data.id);
  if (!id) return 'the e621 sidecar has no post id';
  const item = blankItem(media, text(data.category) ?? 'e621', id);
  const file = isObject(data.file) ? data.file : {};
  const tags = isObject(data.tags) ? data.tags : {};
  item.md5 = md5(file.md5) ?? md5(data.md5);
  item.tags = categorized(
    [],
    Object.keys(tags).map((kind) => [names(tags[kind]), KINDS[kind] ?? null]),
  );
  item.rating = rating(data.rating);
  item.source = source(...(Array.isArray(data.sources) ? data.sources : []));
  item.description = text(data.description);
  item.createdAt = isoTime(data.created_at);
  item.parentOriginId = isObject(data.relationships) ? idText(data.relationships.parent_id) : null;
  // Score is {up, down, total}: total is up minus down, as ImportItem keeps it.
  item.score = isObject(data.score) ? num(data.score.total) : num(data.score);
  item.favCount = num(data.fav_count);
  item.uploader = text(data.uploader_name);
  item.pools = pools(data, id);
  return item;
}
