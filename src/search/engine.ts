/**
 * The search engine's door. A process has one engine core (createEngineCore): it keeps the sets
 * the strategies read (search/sets/: the newest order, the sets of tags, title words, ratings,
 * kinds and uploaders, the posts' counts, totals and first pages of queries) and the lookups a
 * query compiles with (tag names, wildcards, title words, user names). Each thread that serves
 * requests has an engine (searchEngine) over that core, here or in the main thread, and asks it
 * one request at a time: `page(request)`. Whoever asks knows nothing of how the sets are kept; it
 * gets a page of post ids and their total, and makes them into its answer.
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
import { allMatching, finishSearch, type SearchPlan, type SearchResult, searchPlan } from './search.ts';
import { KindSets, RatingSets, UploaderSets } from './sets/column-sets.ts';
import { NewestOrder } from './sets/newest-order.ts';
import { countsByIds, PostNumbers } from './sets/post-numbers.ts';
import { TagSets } from './sets/tag-sets.ts';
import type { SetIndexes } from './sets/indexes.ts';
import { current } from './sets/read-sets.ts';
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

/** The likes, comments and favourites of some posts, in the order they were asked for. */
export interface CountsOf {
  likes: number[];
  comments: number[];
  favs: number[];
}

/**
 * What keeps the sets and answers from them: one a process. In a single process it is called
 * directly; with WORKERS > 1 it runs in the main thread and the serving threads call it through
 * a message port (src/thread-calls.ts). Everything that crosses is plain data.
 */
export interface EngineCore {
  /**
   * The plan of a page at a data version (default: the newest this engine saw), with the version
   * it ran at and the highest post id of the newest order then. A version newer than the one it
   * saw is taken as seen.
   */
  searchAt(query: ListQuery, filters: ListFilters | undefined, version?: number): Promise<{ plan: SearchPlan; version: number; newestId: number }>;
  /** The counts of `ids`, as current as the counts' counter `seq` at least (newestId: the newest order's, when the caller read it). */
  countsOf(ids: number[], newestId: number, seq?: number): Promise<CountsOf>;
  /** Bytes the kept sets and lookups hold, by kind. */
  memory(): Promise<Record<string, number>>;
  /** Builds the newest order and the sets a first deep page would wait for, and the counts a search by likes would. */
  warm(): Promise<void>;
}

/** The core's calls, as another thread makes them (thread-calls.ts). */
export const ENGINE_CALLS = ['searchAt', 'countsOf', 'memory', 'warm'] as const satisfies readonly (keyof EngineCore)[];

/**
 * How long a search waits for the kept sets to come up to its version, and for every post's
 * counts to be read once. The first read of them all, or a new read after a large import, takes
 * minutes at ten million posts: past this wait the search is answered by SQL, and the read goes
 * on behind for the searches after it.
 */
const SETS_WAIT_MS = 1_000;

/** How long a search waits for the sets: SETS_WAIT_MS, or however long they take when a strategy is forced (the tests of one). */
function setsWait(config: Pick<Deps['config'], 'search'>): number {
  const forced = config.search.strategy;
  return forced && forced !== 'auto' ? Number.POSITIVE_INFINITY : SETS_WAIT_MS;
}

/** `work`'s value if it ends within `ms` (its failure, if it ends in time, is thrown; a later one is dropped), else `late()`'s. */
async function orElse<T>(ms: number, work: Promise<T>, late: () => Promise<T>): Promise<T> {
  if (ms === Number.POSITIVE_INFINITY) return work;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof LATE>((resolve) => {
    timer = setTimeout(() => resolve(LATE), ms);
  });
  work.catch(() => {});
  try {
    const first = await Promise.race([work, timeout]);
    return first === LATE ? late() : (first as T);
  } finally {
    clearTimeout(timer);
  }
}

const LATE = Symbol('late');

/** Work a caller stopped waiting for, while it goes on: the calls after it do not wait for it again. */
class Outstanding {
  private work: Promise<void> | null = null;

  get pending(): boolean {
    return this.work !== null;
  }

  /** Notes `work` (unless some is noted already), forgotten once it settles, either way. */
  note(work: Promise<unknown>): void {
    if (this.work) return;
    const over = () => {
      this.work = null;
    };
    this.work = work.then(over, over);
  }
}

/** Whether `work` ended within `ms` (its failure, if it ends in time, is thrown; one later is left to the next caller). */
const within = (ms: number, work: Promise<unknown>): Promise<boolean> =>
  orElse(
    ms,
    work.then(() => true),
    async () => false,
  );

/** The kept sets and lookups of one engine, and what answers from them. */
export function createEngineCore(
  deps: SearchDeps,
  kept: { tagSets?: TagSets; wordSets?: WordSets; numbers?: PostNumbers; setsWaitMs?: number; sets?: false } = {},
): EngineCore {
  // `sets: false`: a core that keeps no sets and plans every search by SQL (answeredWithin's stand-in).
  const keepsSets = kept.sets !== false;
  const order = new NewestOrder();
  const tagSets = kept.tagSets ?? new TagSets();
  const wordSets = kept.wordSets ?? new WordSets();
  const tags = new TagNames();
  const ratings = new RatingSets();
  const kinds = new KindSets();
  const uploaders = new UploaderSets();
  const numbers = kept.numbers ?? new PostNumbers();
  const totals = new KeptTotals();
  const heads = new KeptHeads(1_000, 3);
  const wildcards = new VersionedMap<{ id: number; name: string }[]>(2_000);
  const words = new TermWords();
  const userIds = new UserIds();
  /** The data version this engine saw last. */
  const seen: { version?: number } = {};
  let warming: Promise<void> | null = null;
  const setsWaitMs = kept.setsWaitMs ?? setsWait(deps.config);
  const setsAt = (version: number): SetIndexes => ({
    tags: tagSets,
    ratings,
    kinds,
    uploaders,
    words: wordSets,
    posts: order,
    numbers,
    totals,
    heads,
    version,
  });
  /** The kept sets brought to the version, and every post's counts read once. */
  const ready = async (indexes: SetIndexes) => {
    await current(deps.db, indexes);
    if (!numbers.loaded) await numbers.current(deps.db, order.newestId);
  };

  /** A read of the sets that a search stopped waiting for (the first read takes minutes at ten million posts). */
  const behind = new Outstanding();
  /** Whether the sets are at the version in time: waited for up to setsWaitMs, or not at all while a read already waited for goes on. */
  const setsReady = async (indexes: SetIndexes): Promise<boolean> => {
    if (!keepsSets) return false;
    const reading = ready(indexes);
    if (behind.pending) return within(0, reading);
    const inTime = await within(setsWaitMs, reading);
    if (!inTime) behind.note(reading);
    return inTime;
  };

  const searchAt: EngineCore['searchAt'] = async (query, filters, asked) => {
    const version = asked ?? seen.version ?? (await counter(deps.db, 'version'));
    seen.version = Math.max(seen.version ?? -1, version);
    const tagsNamed: TagLookup = (names) => tags.lookup(deps.db, names, async () => version);
    const lookups = boardLookups(deps.db, tagsNamed, { wildcards, words, version, userIds });
    const base = await baseQuery(deps, query, lookups);
    const indexes = setsAt(version);
    const plan = await searchPlan(
      deps.db,
      {
        q: query.q ?? '',
        base,
        offset: query.offset ?? 0,
        limit: query.limit ?? 24,
        seed: query.seed ?? randomInt(2 ** 31 - 1),
        now: deps.clock.now(),
        filters,
      },
      lookups,
      deps.config.search,
      (await setsReady(indexes)) ? indexes : undefined,
    );
    return { plan, version, newestId: order.newestId };
  };

  return {
    searchAt,
    countsOf: async (ids, newestId, seq) => {
      // Before every post's counts have been read once (a scan of the posts table: over a minute
      // at ten million posts on a cold cache), a page's are read from its rows, and the scan
      // goes on behind. A scan that fails is met again by the next call.
      if (!keepsSets) return countsByIds(deps.db, ids);
      if (!numbers.loaded) {
        numbers.current(deps.db, newestId).catch(() => {});
        return countsByIds(deps.db, ids);
      }
      await numbers.current(deps.db, newestId, seq);
      const [likes, comments, favs] = (['likes', 'comments', 'favs'] as const).map((f) => ids.map(numbers.column(f)));
      return { likes, comments, favs };
    },
    /**
     * Typed arrays are counted exactly; maps of plain values are estimates (core/heap-estimate.ts).
     * A set not built yet (nobody searched what needs it) counts what it holds so far. The names
     * are stable: a gauge's labels.
     */
    memory: async () => {
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
    // Every serving thread warms the one core at its start: they share one warm-up.
    warm: () =>
      keepsSets
        ? (warming ??= (async () => {
            await ready(setsAt(seen.version ?? (await counter(deps.db, 'version'))));
            await searchAt({ offset: 10_000, limit: 1 }, undefined);
          })().finally(() => {
            warming = null;
          }))
        : Promise.resolve(),
  };
}

/**
 * The engine as the rest of the process sees it, over a core that is here or in another thread.
 * A page is searched at the data version the core saw last, which stands in for a read of it:
 * the statement that reads the page's rows reads it too, and if it moved, the search runs again
 * at the new one. Without rows to read, the version is read at the end. What the core left to SQL
 * runs here, in the thread that asked.
 */
export function searchEngine(deps: Pick<Deps, 'db' | 'config' | 'metrics'>, core: EngineCore) {
  let newest = 0;
  const page = async <T>(request: PageRequest<T>): Promise<T> => {
    const { query, render, filters } = request;
    const offset = query.offset ?? 0;
    const limit = query.limit ?? 24;
    const started = deps.metrics ? performance.now() : 0;
    const at = async (version?: number) => {
      const found = await core.searchAt(query, filters, version);
      newest = found.newestId;
      const rendered = await render(await finishSearch(deps.db, found.plan, deps.config.search.budgetMs), offset, limit);
      return { ...rendered, searchedAt: found.version, strategy: found.plan.strategy };
    };
    const first = await at();
    const now = first.version ?? (await counter(deps.db, 'version'));
    const last = now === first.searchedAt ? first : await at(now);
    // Timed here, in the thread that asked: the plan (wherever the core is) and the SQL it left.
    deps.metrics?.searched(last.strategy, (performance.now() - started) / 1000);
    return last.value;
  };
  return {
    page,
    /** The posts' counts, as the columns strategy keeps them current. */
    countsOf: core.countsOf,
    /** The highest post id of the newest order, as the last page searched saw it. */
    newestId: (): number => newest,
    memory: core.memory,
    warm: core.warm,
  };
}

/**
 * The core in the main thread, as a serving thread asks it. The main thread answers every
 * thread's searches from the one copy of the sets, and while a long statement runs there (the
 * sets' first read at ten million posts scans a cold file for seconds at a time) it answers
 * nothing, and its own wait for the sets (SETS_WAIT_MS) cannot fire. Past `ms` the thread that
 * asked plans the search itself by SQL (`local`, a core that keeps no sets), as the main thread
 * would have after its wait, and reads the page's counts from its rows; the late answer is dropped,
 * and until it comes every call is answered here at once rather than after another deadline.
 */
export function answeredWithin(remote: EngineCore, local: EngineCore, ms: number): EngineCore {
  /** A call past its deadline that the core has not answered yet. */
  const late = new Outstanding();
  const ask = <T>(there: () => Promise<T>, here: () => Promise<T>): Promise<T> => {
    if (late.pending) return here();
    const asked = there();
    return orElse(ms, asked, () => {
      late.note(asked);
      return here();
    });
  };
  return {
    searchAt: (...args) =>
      ask(
        () => remote.searchAt(...args),
        () => local.searchAt(...args),
      ),
    countsOf: (...args) =>
      ask(
        () => remote.countsOf(...args),
        () => local.countsOf(...args),
      ),
    memory: () => remote.memory(),
    warm: () => remote.warm(),
  };
}

/**
 * A serving thread's view of the core kept in the main thread (SEARCH_SETS shared): answeredWithin,
 * with a deadline longer than the core's own wait, so that a core that is merely busy still
 * answers, and none for a forced strategy, which is never answered by SQL here either.
 */
export function coreInMainThread(deps: SearchDeps, remote: EngineCore): EngineCore {
  return answeredWithin(remote, createEngineCore(deps, { sets: false }), 2 * setsWait(deps.config));
}

/** An engine with its core in this thread. */
export function createSearchEngine(deps: SearchDeps, kept: Parameters<typeof createEngineCore>[1] = {}) {
  return searchEngine(deps, createEngineCore(deps, kept));
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
