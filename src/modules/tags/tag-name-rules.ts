import { splitCategory, type TagCategory } from '../../core/tag-categories.ts';

/**
 * Tag names: lowercase; surrounding whitespace trimmed; inner whitespace becomes `_`; 1-64 chars;
 * no commas, no leading `-`, no control characters; at most 64 per post; duplicates merged.
 *
 * While tagging, a name may carry a category prefix (`artist:`, `art:`, ...: tag-categories.ts).
 * Colons are otherwise allowed in names, as they always were (`style:flat` is one tag), but a name
 * can no longer begin with a category prefix: `artist:x` written while tagging is the tag `x`.
 * Tags that were named so before keep their names and posts (and `q` still finds them by name).
 */
export const MAX_TAG_LENGTH = 64;
export const MAX_TAGS_PER_POST = 64;
/**
 * The names one write may list. Tags implied by others do not count towards MAX_TAGS_PER_POST
 * (the tag editor lists them with the rest), so a list may be longer; the write path counts the
 * rest once it knows the implications (post-tags.ts). This bounds the work before that.
 */
export const MAX_TAGS_WRITTEN = 4 * MAX_TAGS_PER_POST;

export type TagNameResult = { ok: true; name: string } | { ok: false; reason: string };

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

export function normalizeTagName(raw: string): TagNameResult {
  const name = raw.trim().toLowerCase().replace(/\s+/g, '_');
  if (name.length === 0) return { ok: false, reason: 'a tag cannot be empty' };
  if ([...name].length > MAX_TAG_LENGTH) return { ok: false, reason: `tag '${name.slice(0, 20)}…' is longer than ${MAX_TAG_LENGTH} characters` };
  if (name.includes(',')) return { ok: false, reason: `tag '${name}' contains a comma` };
  if (name.startsWith('-')) return { ok: false, reason: `tag '${name}' starts with '-'` };
  if (CONTROL.test(name)) return { ok: false, reason: `tag '${name}' contains a control character` };
  return { ok: true, name };
}

/** A name a tag can be given from now on (a new tag, a rename, an alias): the rules above, and no category prefix. */
export function newTagName(raw: string): TagNameResult {
  const r = normalizeTagName(raw);
  if (r.ok && splitCategory(r.name).category) return { ok: false, reason: `tag '${r.name}' begins with a category prefix` };
  return r;
}

/** Tags as written while tagging: names, each once, and the category a prefix asked for (applied only to tags the write creates). */
export interface TagInput {
  tags: string[];
  categories: Map<string, TagCategory>;
}

/**
 * Parses tags written while tagging; empty items are dropped and duplicates merged (the first
 * prefix of a name wins). `max`: how many names the list may hold.
 */
export function parseTags(list: string[], max = MAX_TAGS_WRITTEN): TagInput & { errors: string[] } {
  const seen = new Set<string>();
  const categories = new Map<string, TagCategory>();
  const errors: string[] = [];
  for (const part of list) {
    if (part.trim() === '') continue;
    const { name, category } = splitCategory(part);
    const r = category ? newTagName(name) : normalizeTagName(name);
    if (!r.ok) {
      errors.push(category && name.trim() === '' ? `tag '${part.trim()}' has a category prefix but no name` : r.reason);
      continue;
    }
    seen.add(r.name);
    if (category && !categories.has(r.name)) categories.set(r.name, category);
  }
  if (seen.size > max)
    errors.push(`at most ${MAX_TAGS_PER_POST} tags per post${max > MAX_TAGS_PER_POST ? ', not counting tags that others imply' : ''} (got ${seen.size})`);
  return { tags: [...seen], categories, errors };
}

/** Parses a comma-separated tag list (see parseTags). */
export const parseTagList = (csv: string) => parseTags(csv.split(','));

/** Names already normalised, without category prefixes (tests, the seeder). */
export const plainTags = (tags: string[]): TagInput => ({ tags, categories: new Map() });
