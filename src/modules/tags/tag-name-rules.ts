/**
 * Tag names: lowercase; surrounding whitespace trimmed; inner whitespace becomes `_`; 1-64 chars;
 * no commas, no leading `-`, no control characters; at most 64 per post; duplicates merged.
 */
export const MAX_TAG_LENGTH = 64;
export const MAX_TAGS_PER_POST = 64;

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

/** Parses a comma-separated tag list; empty items are dropped and duplicates merged. */
export function parseTagList(csv: string): { tags: string[]; errors: string[] } {
  const seen = new Set<string>();
  const errors: string[] = [];
  for (const part of csv.split(',')) {
    if (part.trim() === '') continue;
    const r = normalizeTagName(part);
    if (r.ok) seen.add(r.name);
    else errors.push(r.reason);
  }
  if (seen.size > MAX_TAGS_PER_POST) errors.push(`at most ${MAX_TAGS_PER_POST} tags per post (got ${seen.size})`);
  return { tags: [...seen], errors };
}
