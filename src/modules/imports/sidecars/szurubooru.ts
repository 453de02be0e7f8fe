import { TAG_CATEGORIES, type TagCategory } from '../../../core/tag-categories.ts';
import type { ImportComment, ImportItem, ImportPoolRef, ImportTag } from '../import-item.ts';
import { blankItem, categorized, idText, isObject, isoTime, type Json, type Media, md5, num, rating, source, text } from './fields.ts';

/**
 * gallery-dl's metadata of a szurubooru post: the instance's post resource plus `category` (the
 * instance's name). gallery-dl turns `tags` into the tags' first names and adds `tags_<category>`
 * lists; the resource's own shape (tags as {names, category}) is read too. szurubooru has no
 * parent, only unordered relations, which are left out; its pools give no place either.
 */

/** A szurubooru tag category, named by its instance: ours when the name is one, "default" as general, else none. */
function kind(name: string): TagCategory | null {
  const n = name.toLowerCase();
  if (n === 'default') return 'general';
  return (TAG_CATEGORIES as readonly string[]).includes(n) ? (n as TagCategory) : null;
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((n): n is string => typeof n === 'string' && n !== '') : []);

function tags(data: Json): ImportTag[] {
  const list = Array.isArray(data.tags) ? data.tags : [];
  if (list.some(isObject)) {
    // The resource's shape; gallery-dl keeps a category's last part after "_" as well.
    return categorized(
      [],
      list.filter(isObject).map((t) => [strings(t.names).slice(0, 1), kind(String(t.category ?? '').replace(/^.*_/, ''))]),
    );
  }
  const typed = Object.keys(data)
    .filter((k) => k.startsWith('tags_'))
    .sort()
    .map((k): [string[], TagCategory | null] => [strings(data[k]), kind(k.slice(5))]);
  return categorized(strings(list), typed);
}

function pools(data: Json): ImportPoolRef[] {
  return (Array.isArray(data.pools) ? data.pools : [])
    .filter(isObject)
    .map((p) => ({ key: idText(p.id) ?? '', name: strings(p.names)[0] ?? null, position: null, description: null }))
    .filter((p) => p.key !== '');
}

function comments(data: Json): ImportComment[] {
  return (Array.isArray(data.comments) ? data.comments : [])
    .filter(isObject)
    .filter((c) => idText(c.id) && typeof c.text === 'string' && c.text.trim() !== '')
    .map((c) => ({
      key: idText(c.id)!,
      author: isObject(c.user) ? text(c.user.name) : null,
      body: c.text as string,
      createdAt: isoTime(c.creationTime),
    }));
}

export function readSzurubooru(data: Json, media: Media): ImportItem | string {
  const id = idText(data.id);
  if (!id) return 'the szurubooru sidecar has no post id';
  const item = blankItem(media, text(data.category) ?? 'szurubooru', id);
  item.md5 = md5(data.checksumMD5);
  item.tags = tags(data);
  item.rating = rating(data.safety);
  item.source = source(data.source);
  item.createdAt = isoTime(data.creationTime);
  item.score = num(data.score);
  item.favCount = num(data.favoriteCount);
  item.uploader = isObject(data.user) ? text(data.user.name) : null;
  item.pools = pools(data);
  item.comments = comments(data);
  return item;
}
