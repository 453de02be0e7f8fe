import { AppError } from '../../core/errors.ts';
import type { Db } from '../../db/engine.ts';
import { METATAG_NAMES } from '../../search/compile.ts';
import { didYouMean } from '../../core/nearest.ts';
import { CATEGORY_PREFIXES } from '../../core/tag-categories.ts';
import { findExistingTagNames } from './danbooru-posts.repo.ts';

/** Danbooru's rating words, as ours (its letters g, s, q, e our search knows already). */
const RATINGS: Record<string, string> = { general: 'safe', sensitive: 'safe', questionable: 'sketchy', explicit: 'unsafe' };

/** Danbooru's orders, as ours. */
const ORDER_NAMES: Record<string, string> = { score: 'likes', score_asc: 'likes_asc', favcount: 'favs', id_desc: 'id', id: 'id_asc' };

/** Danbooru's statuses: every post of ours is active; the others match nothing. */
const ACTIVE = new Set(['any', 'active']);
const STATUSES = new Set([...ACTIVE, 'deleted', 'pending', 'flagged', 'banned', 'appealed', 'modqueue', 'unmoderated']);

/** Metatags of Danbooru's that we translate (the others of its are unknown here: a 422 naming them). */
const THEIRS = new Set(['score', 'status', 'child']);
const OURS = new Set<string>(METATAG_NAMES);

/** A term `name:value`, with its prefix (`-`, `~`, `(`) and closing brackets apart. */
const META = /^([-~(]*)([a-z_]+):(.*?)(\)*)$/i;

/** Where a page starts: a page number, or ids below or above one (`page=b123`, `page=a123`). */
export type Cursor = { below: number } | { above: number } | null;

/**
 * Danbooru's `tags` as a query of our language: its spellings rewritten term by term (so our
 * search, with its aliases and implications, answers), and a cursor as an id range in id order
 * (a cursor ignores any `order:`, as Danbooru's does). A `name:value` that is neither our
 * metatag, nor Danbooru's, nor an existing tag of that name is refused, naming it.
 */
export async function ourQuery(db: Db, tags: string, cursor: Cursor): Promise<string> {
  const out: string[] = [];
  const unknown: string[] = [];
  for (const term of tags.split(/\s+/).filter(Boolean)) {
    const m = META.exec(term);
    if (!m) {
      out.push(term);
      continue;
    }
    const [, prefix, rawName, rawValue, close] = m;
    const name = rawName.toLowerCase();
    const value = rawValue.toLowerCase();
    const negated = prefix.includes('-');
    if (name === 'order' && cursor) continue;
    if (name === 'rating')
      out.push(
        `${prefix}rating:${value
          .split(',')
          .map((v) => RATINGS[v] ?? v)
          .join(',')}${close}`,
      );
    else if (name === 'score') out.push(`${prefix}likes:${rawValue}${close}`);
    else if (name === 'order') out.push(`${prefix}order:${ORDER_NAMES[value] ?? value}${close}`);
    // ordpool: is ours too (the pool's order); a cursor's page is in id order, as with any order:.
    else if (name === 'ordpool' && cursor) out.push(`${prefix}pool:${rawValue}${close}`);
    // Danbooru's parent:ID is the family: the parent itself and its children.
    else if (name === 'parent' && /^\d+$/.test(value)) out.push(`${prefix}(id:${value} or parent:${value})${close}`);
    else if (name === 'child' && (value === 'any' || value === 'none')) out.push(`${prefix}${value === 'none' ? '-' : ''}has:children${close}`);
    else if (name === 'status') {
      if (!STATUSES.has(value)) throw new AppError(400, `status: '${rawValue}' is not a status: expected ${[...STATUSES].join(', ')}`);
      // Every post matches an active status and none the others; negated, the other way round.
      const all = ACTIVE.has(value) !== negated;
      out.push(`${prefix.replace(/-/g, '')}${all ? 'id:>0' : 'id:0'}${close}`);
    } else {
      // A category prefix (artist:somebody) means the tag after it, as our search reads it.
      if (!OURS.has(name) && !THEIRS.has(name) && !CATEGORY_PREFIXES.includes(name)) unknown.push(`${name}:${value}`);
      out.push(term);
    }
  }
  if (unknown.length) {
    const found = new Set(await findExistingTagNames(db, unknown));
    const missing = unknown.find((n) => !found.has(n));
    if (missing !== undefined) {
      const name = missing.slice(0, missing.indexOf(':'));
      throw new AppError(400, `Unknown metatag or tag: '${name}' (in '${missing}')${didYouMean(name, [...OURS, ...THEIRS], '')}`);
    }
  }
  if (cursor && 'below' in cursor) out.push(`id:<${cursor.below}`, 'order:id');
  if (cursor && 'above' in cursor) out.push(`id:>${cursor.above}`, 'order:id_asc');
  return out.join(' ');
}
