/**
 * Tag categories: Danbooru's five. A category is set while tagging with a prefix (`artist:name`,
 * or a short form such as `art:name`), and only for a tag that write creates: an existing tag keeps
 * its category (moderators change it with PATCH /api/tags/<name>).
 */
export const TAG_CATEGORIES = ['general', 'artist', 'copyright', 'character', 'meta'] as const;
export type TagCategory = (typeof TAG_CATEGORIES)[number];

/** Every prefix a tag may carry while tagging (lower case), and the category it sets. */
const PREFIXES: Record<string, TagCategory> = {
  general: 'general',
  gen: 'general',
  artist: 'artist',
  art: 'artist',
  copyright: 'copyright',
  copy: 'copyright',
  character: 'character',
  char: 'character',
  meta: 'meta',
};

export const CATEGORY_PREFIXES = Object.keys(PREFIXES);

/**
 * A tag as written while tagging, split into its category prefix (when the text before its first
 * colon is one, in any case) and the rest. Any other colon is part of the name, as before.
 */
export function splitCategory(raw: string): { name: string; category?: TagCategory } {
  const colon = raw.indexOf(':');
  if (colon < 0) return { name: raw };
  const category = PREFIXES[raw.slice(0, colon).trim().toLowerCase()];
  return category ? { name: raw.slice(colon + 1), category } : { name: raw };
}
