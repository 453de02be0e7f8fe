// Tag categories as boorus show them: artist, copyright and character before the general tags,
// meta last, each in its own colour (styles/layout.css, .cat-*).
import type { TagCategory } from '../api/types.ts';

export const CATEGORY_ORDER: TagCategory[] = ['artist', 'copyright', 'character', 'general', 'meta'];

export const CATEGORY_LABEL: Record<TagCategory, string> = {
  artist: 'Artist',
  copyright: 'Copyright',
  character: 'Character',
  general: 'General',
  meta: 'Meta',
};

/** The class that colours a tag of the category. */
export const categoryClass = (c: TagCategory) => `cat-${c}`;

/** Items grouped by category, in CATEGORY_ORDER, empty groups left out. */
export function byCategory<T extends { category: TagCategory }>(items: T[]): [TagCategory, T[]][] {
  return CATEGORY_ORDER.map((c) => [c, items.filter((t) => t.category === c)] as [TagCategory, T[]]).filter(([, list]) => list.length > 0);
}
