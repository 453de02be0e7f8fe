import type { Config } from '../../config.ts';
import type { Database } from '../../db/database.ts';

/**
 * Where the search engine's kept sets live when several threads serve (SEARCH_SETS). One copy in
 * the main thread holds them once, but one thread then evaluates every search: on two cores the
 * serving threads wait for it, and a million-post board loses a third of its searches a second.
 * A copy in each thread runs them side by side, at a copy's memory a thread. `auto` pays that
 * while all the copies stay small, and shares one copy past it (a ten-million-post board's sets
 * fill hundreds of megabytes: docs/benchmarks.md).
 */

/** What one copy holds at most, a post: the tag and title-word sets' budgets (24 + 6 bytes), the newest order, the posts' counts and the column sets. */
export const KEPT_BYTES_PER_POST = 64;
/** What all the copies together may hold before `auto` keeps one. */
export const COPIES_BUDGET_BYTES = 256 * 1024 * 1024;

/** `each` while a copy a serving thread fits the budget for a board of `posts`. */
export function setsFor(setting: Config['searchSets'], workers: number, posts: number): 'shared' | 'each' {
  if (setting !== 'auto') return setting;
  return workers * posts * KEPT_BYTES_PER_POST <= COPIES_BUDGET_BYTES ? 'each' : 'shared';
}

/** The choice for this board, by its highest post id (a bound on its posts, read from the key's index at once). */
export async function whereSetsLive(database: Database, config: Pick<Config, 'searchSets' | 'workers'>): Promise<'shared' | 'each'> {
  // Only `auto` needs the board's size.
  const top =
    config.searchSets === 'auto'
      ? await database
          .selectFrom('posts')
          .select((eb) => eb.fn.max('id').as('top'))
          .executeTakeFirst()
      : undefined;
  return setsFor(config.searchSets, config.workers, Number(top?.top ?? 0));
}
