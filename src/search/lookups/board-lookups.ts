import { sql } from 'kysely';
import { toId } from '../../core/ids.ts';
import { splitCategory } from '../../core/tag-categories.ts';
import type { VersionedMap } from '../../core/versioned-map.ts';
import { type Database, escapeLike } from '../../db/engine.ts';
import { prepared } from '../../db/prepared.ts';
import type { Lookups } from '../compile.ts';
import { findUserIdByName } from '../../db/queries/user-ids.ts';
import type { UserIds } from './user-ids.ts';
import type { TagLookup } from './tag-names.ts';
import { TermWords } from './title-terms.ts';

/**
 * Lookups a process keeps: at one data version, wildcard expansions and the title words of texts
 * (both move only with it); and user ids by name, which never move.
 */
export interface KeptLookups {
  wildcards: VersionedMap<{ id: number; name: string }[]>;
  words: TermWords;
  version: number;
  userIds?: UserIds;
}

const poolById = prepared((db, p: { id: number }) => db.selectFrom('pools').select('id').where('id', '=', p.id));

/** What the search looks up while it compiles a query, from this board's tables (`kept`: what a process keeps of them). */
export function boardLookups(db: Database, tagsNamed: TagLookup, kept?: KeptLookups): Lookups {
  return {
    tags: async (names) => {
      const found = await tagsNamed(names);
      // A category prefix as written while tagging (artist:somebody), on a name that is no tag's, means the tag after it.
      const rest = names
        .filter((n) => !found.has(n))
        .map((n) => ({ asked: n, ...splitCategory(n) }))
        .filter((p) => p.category && p.name !== '');
      if (rest.length === 0) return found;
      const more = await tagsNamed(rest.map((p) => p.name));
      for (const p of rest) if (more.has(p.name)) found.set(p.asked, more.get(p.name)!);
      return found;
    },
    wildcard: async (pattern, limit) => {
      const key = `${limit}:${pattern}`;
      const known = kept?.wildcards.get(key, kept.version);
      if (known) return known;
      const found = await expand(pattern, limit);
      kept?.wildcards.set(key, found, kept.version);
      return found;
    },
    titleWords: (text) => (kept?.words ?? new TermWords(1)).idsOf(db, text, kept?.version),
    user: (name) => (kept?.userIds ? kept.userIds.of(db, name) : findUserIdByName(db, name)),
    pool: async (raw) => {
      const id = toId(raw);
      if (id === null) return undefined;
      return (await poolById(db, { id }))[0]?.id;
    },
  };

  /** The tags a pattern matches, the most used first. */
  async function expand(pattern: string, limit: number) {
    // A literal start narrows the names to a range of the unique index on them.
    const literal = pattern.slice(0, pattern.indexOf('*'));
    let q = db
      .selectFrom('tags')
      .select(['id', 'name'])
      .where('post_count', '>', 0)
      .where(sql<boolean>`name LIKE ${escapeLike(pattern).replace(/\*/g, '%')} ESCAPE '\\'`);
    if (literal) q = q.where('name', '>=', literal).where('name', '<', `${literal}\uffff`);
    return q.orderBy('post_count', 'desc').orderBy('name').limit(limit).execute();
  }
}
