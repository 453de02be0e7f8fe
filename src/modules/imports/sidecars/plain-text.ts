import type { TagCategory } from '../../../core/tag-categories.ts';
import type { ImportItem } from '../import-item.ts';
import { blankItem, type Media, rating, source } from './fields.ts';

/**
 * A `.txt` sidecar of tags one a line: Hydrus's export (`namespace:tag`, spaces in names) and
 * gallery-dl's `--write-tags` (bare names, their kinds lost). Such a file names no board: the
 * origin is `file`, and the file's own hash stands for an id.
 */

/** Hydrus's namespaces that are tag kinds of ours; any other namespace stays part of the name (`species:cat`). */
const NAMESPACES: Record<string, TagCategory> = {
  creator: 'artist',
  artist: 'artist',
  series: 'copyright',
  copyright: 'copyright',
  character: 'character',
  meta: 'meta',
  general: 'general',
};

export function readPlainText(content: string, media: Media): ImportItem {
  const item = blankItem(media, 'file');
  const seen = new Set<string>();
  for (const raw of content.replace(/^\uFEFF/, '').split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '') continue;
    const colon = line.indexOf(':');
    const namespace = colon > 0 ? line.slice(0, colon).trim().toLowerCase() : '';
    const value = colon > 0 ? line.slice(colon + 1).trim() : line;
    if (namespace === 'title') {
      item.title ??= value || null;
      continue;
    }
    if (namespace === 'source' || namespace === 'url') {
      item.source ??= source(value);
      continue;
    }
    // An unknown rating ("rating:lewd") is kept as a tag rather than lost without a word.
    if (namespace === 'rating' && rating(value)) {
      item.rating ??= rating(value);
      continue;
    }
    const category = NAMESPACES[namespace];
    const tag = category ? { name: value, category } : { name: line, category: namespace ? null : ('general' as const) };
    if (tag.name === '' || seen.has(tag.name)) continue;
    seen.add(tag.name);
    item.tags.push(tag);
  }
  return item;
}
