import { randomInt } from 'node:crypto';
import { sql } from 'kysely';
import type { Deps } from '../../core/deps.ts';
import { toId } from '../../core/ids.ts';
import { escapeLike } from '../../db/engine.ts';
import { prepared } from '../../db/prepared.ts';
import { type Lookups, namedTagExpr, titleLeaf } from '../../search/compile.ts';
import { type Expr, ORDERS, SORT_ORDERS } from '../../search/expr.ts';
import type { ListFilters } from '../../search/filters.ts';
import { type BaseQuery, type SearchResult, search } from '../../search/search.ts';
import type { SetIndexes } from '../../search/sets.ts';
import { findUserIdByName } from '../users/users.repo.ts';
import type { UserIds } from '../users/user-names.ts';
import * as repo from './posts.repo.ts';
import type { PostListQuery } from './posts.schemas.ts';
import { cursorPost, parseDateParam, postListRest, searchTerms, tagNamesOf } from './posts.service.ts';
import type { NewestWindow } from './newest-window.ts';
import type { TagLookup } from './tag-lookup-cache.ts';
import { splitCategory } from '../tags/tag-categories.ts';
import type { VersionedMap } from './versioned-map.ts';
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

/** What the search module looks up, from this board's tables. */
export function boardLookups(deps: Deps, tagsNamed: TagLookup, kept?: KeptLookups): Lookups {
  const { db } = deps;
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

/** The old list parameters as the search module's base query (each keeps its meaning and its errors). */
async function baseQuery(deps: Deps, q: PostListQuery, lookups: Lookups): Promise<BaseQuery> {
  const parts: Expr[] = [];
  if (q.dateFrom !== undefined || q.dateTo !== undefined) {
    const lo = q.dateFrom === undefined ? -Infinity : parseDateParam('dateFrom', q.dateFrom, false);
    const hi = q.dateTo === undefined ? Infinity : parseDateParam('dateTo', q.dateTo, true);
    parts.push({ kind: 'num', field: 'created', ranges: [{ lo, hi }] });
  }
  const terms = searchTerms(q);
  const tagNames = tagNamesOf(q);
  const found = await lookups.tags([...tagNames, ...terms]);
  for (const name of tagNames) parts.push(namedTagExpr(found.get(name)));
  for (const text of terms) {
    const tag = found.get(text);
    const title = await titleLeaf(text, lookups);
    // A term matches the title, or the post's tag of that name.
    parts.push(tag ? { kind: 'or', exprs: [title, namedTagExpr(tag)] } : title);
  }
  if (q.uploader !== undefined) {
    const id = await lookups.user(q.uploader);
    parts.push(id === undefined ? { kind: 'none' } : { kind: 'uploader', userId: id });
  }
  if (q.contentRating) parts.push({ kind: 'rating', values: [q.contentRating] });
  if (q.minLikes) parts.push({ kind: 'num', field: 'likes', ranges: [{ lo: q.minLikes, hi: Infinity }] });
  const base: BaseQuery = { expr: parts.length === 0 ? { kind: 'all' } : { kind: 'and', exprs: parts } };
  if (q.sortBy) base.order = SORT_ORDERS[q.sortBy];
  if (q.before !== undefined) {
    const cursor = await cursorPost(deps, { ...q, before: q.before });
    base.before = { created: cursor.createdAt, id: cursor.id };
  }
  return base;
}

/** What a page is made into (the list's JSON, or another API's objects), and the data version its rows were read at, when a statement read them. */
export type PageRenderer<T> = (page: SearchResult, offset: number, limit: number) => Promise<{ value: T; version?: number }>;

/** What a page of GET /api/posts says after its posts (`found`: those it shows). */
function listRest(result: SearchResult, found: number[], offset: number, limit: number): string {
  const last = found[found.length - 1];
  const cursor = result.order === ORDERS.newest && found.length === limit && last !== undefined ? String(last) : null;
  return postListRest({ total: result.total, estimated: result.estimated, hidden: result.hidden }, offset, limit, cursor, result.wildcards);
}

/** GET /api/posts's JSON text: the page's stored items, read with the data version. */
export const listJson =
  ({ db, config }: Pick<Deps, 'db' | 'config'>): PageRenderer<string> =>
  async (result, offset, limit) => {
    const items = await repo.itemsByIds(db, result.ids, config);
    return { value: `{"posts":${items.json}${listRest(result, items.ids, offset, limit)}`, version: items.version };
  };

/**
 * GET /api/posts's answer: as bytes from the window when it holds the page's posts (the first
 * pages of the newest list), else as listJson's text.
 */
export const listBody = (deps: Pick<Deps, 'db' | 'config'>, window: NewestWindow, newestId: () => number): PageRenderer<string | Buffer> => {
  const text = listJson(deps);
  return async (result, offset, limit) => {
    const kept = await window.items(deps.db, result.ids, newestId(), deps.config);
    if (!kept) return text(result, offset, limit);
    kept.writer.json(listRest(result, kept.ids, offset, limit));
    return { value: kept.writer.buffer.subarray(0, kept.writer.at), version: kept.version };
  };
};

/**
 * GET /api/posts with `q` (or another reader of the same list): the search module's page, made
 * into what `render` makes of it. `filters`: the viewer's own (GET /api/posts only).
 */
export async function listBySearch<T>(
  deps: Deps,
  q: PostListQuery & { q: string },
  tagsNamed: TagLookup,
  render: PageRenderer<T>,
  indexes?: SetIndexes,
  kept?: KeptLookups,
  filters?: ListFilters,
): Promise<{ value: T; version?: number }> {
  const offset = q.offset ?? 0;
  const limit = q.limit ?? 24;
  const lookups = boardLookups(deps, tagsNamed, kept);
  const base = await baseQuery(deps, q, lookups);
  const result = await search(
    deps.db,
    { q: q.q, base, offset, limit, seed: q.seed ?? randomInt(2 ** 31 - 1), now: deps.clock.now(), filters },
    lookups,
    deps.config.search,
    indexes,
  );
  return render(result, offset, limit);
}
