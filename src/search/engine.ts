/**
 * The search engine's door. A process makes one engine (through the posts service, in
 * src/services.ts); it keeps the sets the strategies read (search/sets/: the newest order, the
 * sets of tags, title words, ratings, kinds and uploaders, the posts' counts, totals and first
 * pages of queries) and the lookups a query compiles with (tag names, wildcards, title words, user
 * names), and answers one request at a time: `page(request)`. Whoever asks knows nothing of how
 * the sets are kept; it gets a page of post ids and their total, and makes them into its answer.
 */
import { randomInt } from 'node:crypto';
import type { Deps } from '../core/deps.ts';
import { VersionedMap } from '../core/versioned-map.ts';
import { arrayBytes, objectBytes, stringBytes } from '../core/heap-estimate.ts';
import { counter } from '../db/counters.ts';
import type { RawBuilder } from 'kysely';
import type { ListFilters } from './filters.ts';
import { baseQuery, type ListQuery } from './list-query.ts';
import { boardLookups } from './lookups/board-lookups.ts';
import { tagsByName } from '../db/queries/tag-names.ts';
import { type TagLookup, TagNames } from './lookups/tag-names.ts';
import { TermWords } from './lookups/title-terms.ts';
import { allMatching, type SearchResult, search } from './search.ts';
import { KindSets, RatingSets, UploaderSets } from './sets/column-sets.ts';
import type { CountField } from './sets/indexes.ts';
import { NewestOrder } from './sets/newest-order.ts';
import { PostNumbers } from './sets/post-numbers.ts';
import { TagSets } from './sets/tag-sets.ts';
import { WordSets } from './sets/title-word-sets.ts';
import { KeptHeads, KeptTotals } from './sets/totals.ts';
import { UserIds } from './lookups/user-ids.ts';

type SearchDeps = Pick<Deps, 'db' | 'config' | 'clock'>;

/** What a page is made into (the list's JSON, or another API's objects), and the data version its rows were read at, when a statement read them. */
export type PageRenderer<T> = (page: SearchResult, offset: number, limit: number) => Promise<{ value: T; version?: number }>;

/** One request to the engine. */
export interface PageRequest<T> {
  /** The list asked for: `q` and the older list parameters, offset, limit and seed. */
  query: ListQuery;
  /** What the page is made into. */
  render: PageRenderer<T>;
  /** A viewer's own filters (GET /api/posts); other readers of the list have none. */
  filters?: ListFilters;
}

/** The posts' counts as the engine keeps them, for those who show them (the newest window of the posts module). */
export interface PostCounts {
  current(db: SearchDeps['db'], newestId: number, seq?: number): Promise<number>;
  column(field: CountField): (id: number) => number;
}

export function createSearchEngine(deps: SearchDeps, kept: { tagSets?: TagSets; wordSets?: WordSets } = {}) {
  const order = new NewestOrder();
  const tagSets = kept.tagSets ?? new TagSets();
  const wordSets = kept.wordSets ?? new WordSets();
  const tags = new TagNames();
  const ratings = new RatingSets();
  const kinds = new KindSets();
  const uploaders = new UploaderSets();
  const numbers = new PostNumbers();
  const totals = new KeptTotals();
  const heads = new KeptHeads(1_000, 3);
  const wildcards = new VersionedMap<{ id: number; name: string }[]>(2_000);
  const words = new TermWords();
  const userIds = new UserIds();
  /** The data version this process saw last. */
  const seen: { version?: number } = {};

  /** The page at one data version, made into what the request's renderer makes of it. */
  const at = async <T>({ query, render, filters }: PageRequest<T>, version: number) => {
    const tagsNamed: TagLookup = (names) => tags.lookup(deps.db, names, async () => version);
    const lookups = boardLookups(deps.db, tagsNamed, { wildcards, words, version, userIds });
    const offset = query.offset ?? 0;
    const limit = query.limit ?? 24;
    const base = await baseQuery(deps, query, lookups);
    const result = await search(
      deps.db,
      { q: query.q ?? '', base, offset, limit, seed: query.seed ?? randomInt(2 ** 31 - 1), now: deps.clock.now(), filters },
      lookups,
      deps.config.search,
      { tags: tagSets, ratings, kinds, uploaders, words: wordSets, posts: order, numbers, totals, heads, version },
    );
    return render(result, offset, limit);
  };

  /**
   * A page of the post list at one data version. The version this process saw last stands in for
   * a read of it: the statement that reads the page's rows reads it too, and if it moved, the
   * search runs again at the new one. Without rows to read, the version is read at the end.
   */
  const page = async <T>(request: PageRequest<T>): Promise<T> => {
    const assumed = seen.version ?? (await counter(deps.db, 'version'));
    let result = await at(request, assumed);
    const now = result.version ?? (await counter(deps.db, 'version'));
    if (now !== assumed) result = await at(request, now);
    seen.version = Math.max(seen.version ?? -1, now);
    return result.value;
  };

  return {
    page,
    /** The posts' counts, as the columns strategy keeps them current. */
    counts: numbers as PostCounts,
    /** The highest post id the newest order knows. */
    newestId: (): number => order.newestId,
    /**
     * Bytes the kept sets and lookups hold, by kind (stable names: a gauge's labels). Typed arrays
     * are counted exactly; maps of plain values are estimates (core/heap-estimate.ts). A set not
     * built yet (nobody searched what needs it) counts what it holds so far.
     */
    memory: (): Record<string, number> => {
      const tag = tagSets.memory();
      const numbersHeld = numbers.memory();
      return {
        newestOrder: order.bytes(),
        tagBitmaps: tag.bitmaps,
        tagLists: tag.lists,
        tagDecoded: tag.decoded,
        tagOther: tag.other,
        titleWords: total(wordSets.memory()),
        ratings: total(ratings.memory()),
        kinds: total(kinds.memory()),
        uploaders: total(uploaders.memory()),
        postCounts: numbersHeld.counts,
        postLeaders: numbersHeld.leaders,
        totals: totals.bytes(),
        heads: heads.bytes(),
        lookups:
          tags.bytes() +
          wildcards.bytes((found) => arrayBytes(found.length) + found.reduce((sum, t) => sum + objectBytes(2) + stringBytes(t.name), 0)) +
          words.bytes() +
          userIds.bytes(),
      };
    },
    /** Builds the newest order and the sets a first deep page would wait for, and the counts a search by likes would. */
    warm: async (): Promise<void> => {
      await page({ query: { offset: 10_000, limit: 1 }, render: async () => ({ value: null }) });
      await numbers.current(deps.db, order.newestId);
    },
  };
}

export type SearchEngine = ReturnType<typeof createSearchEngine>;

/** The sum of a memory() record's parts. */
const total = (parts: Record<string, number>): number => Object.values(parts).reduce((a, b) => a + b, 0);

/**
 * Every post `q` matches, as a statement selecting their ids (search.ts's allMatching), for work
 * over all of them such as a bulk edit or an export; compiled with lookups read afresh.
 */
export function allMatchingPosts(deps: SearchDeps, q: string): Promise<RawBuilder<{ id: number }>> {
  const lookups = boardLookups(deps.db, (names) => tagsByName(deps.db, names));
  return allMatching(deps.db, q, lookups, deps.config.search, deps.clock.now());
}
