import type { TagCategory } from '../../core/tag-categories.ts';
import { splitCategory } from '../../core/tag-categories.ts';
import { MAX_TAGS_PER_POST, newTagName, normalizeTagName, type TagInput } from '../tags/tag-name-rules.ts';
import type { ImportTag } from './import-item.ts';

/** Which tags a post keeps when its source gives more than a post may have: the rarest kinds first. */
const KEEP_ORDER: (TagCategory | null)[] = ['artist', 'copyright', 'character', 'general', null, 'meta'];

/**
 * A source's tags as a write takes them: names in our rules' form (a category prefix read as the
 * category, as when tagging), each once, at most MAX_TAGS_PER_POST of them; what had to be left
 * out is said in `warnings`, never silently.
 */
export function importTags(tags: ImportTag[]): TagInput & { warnings: string[] } {
  const warnings: string[] = [];
  const categories = new Map<string, TagCategory>();
  const byName = new Map<string, TagCategory | null>();
  for (const tag of tags) {
    const split = splitCategory(tag.name);
    const r = split.category ? newTagName(split.name) : normalizeTagName(split.name);
    if (!r.ok) {
      warnings.push(`tag left out: ${r.reason}`);
      continue;
    }
    const category = tag.category ?? split.category ?? null;
    if (!byName.has(r.name) || (byName.get(r.name) === null && category !== null)) byName.set(r.name, category);
  }
  let names = [...byName.keys()];
  if (names.length > MAX_TAGS_PER_POST) {
    const rank = (n: string) => KEEP_ORDER.indexOf(byName.get(n) ?? null);
    const kept = new Set([...names].sort((a, b) => rank(a) - rank(b)).slice(0, MAX_TAGS_PER_POST));
    const dropped = names.filter((n) => !kept.has(n));
    warnings.push(`${dropped.length} of ${names.length} tags left out (a post has at most ${MAX_TAGS_PER_POST}): ${dropped.join(' ')}`);
    names = names.filter((n) => kept.has(n));
  }
  for (const n of names) {
    const c = byName.get(n);
    if (c) categories.set(n, c);
  }
  return { tags: names, categories, warnings };
}
