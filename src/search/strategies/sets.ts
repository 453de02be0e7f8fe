/**
 * The in-memory strategy: a query of sets alone (tags, wildcards, fav:, user:, pool:, ratings,
 * kinds, title words, id and date ranges, with AND, OR and NOT) evaluated over the sets a process
 * keeps (search/sets/), in id order, which is the newest order while posts keep their upload
 * order. Every intermediate result is a bitmap over post ids (sets/evaluate.ts): at a million posts
 * 31,250 words, ANDed or ORed word by word; the page is read from the top (or bottom) word,
 * skipping whole words by their bit count, and the total is exact. A page near the top may instead
 * be found by walking the smallest set the query ANDs and testing each post (walkedPage).
 */
import type { Database } from '../../db/engine.ts';
import type { Compiled, Expr, OrderKey } from '../expr.ts';
import { ORDERS } from '../expr.ts';
import { below, eachId, has, pageOf, Scratch } from '../sets/post-set.ts';
import type { SearchPage } from './sql.ts';
import { HEAD_POSTS } from '../sets/totals.ts';
import { current, fetchSets } from '../sets/read-sets.ts';
import type { AllPosts, SetIndexes } from '../sets/indexes.ts';
import { Evaluator, setsAlone, sizeOfResult, testsOf, without, wordsOf } from '../sets/evaluate.ts';
import { keptHeadsOf, keptTotalsOf } from '../sets/kept-answers.ts';

/** The orders the sets serve: by id (a bitmap's own), or by date (the same while ids follow dates, else the newest order walked). */
function direction(order: readonly OrderKey[]): { dir: 'asc' | 'desc'; byDate: boolean } | null {
  if (order === ORDERS.newest) return { dir: 'desc', byDate: true };
  if (order === ORDERS.oldest) return { dir: 'asc', byDate: true };
  if (order === ORDERS.id) return { dir: 'desc', byDate: false };
  if (order === ORDERS.id_asc) return { dir: 'asc', byDate: false };
  return null;
}

/** Whether this strategy can answer the query (before its indexes are read). */
export function setsServe(c: Compiled): boolean {
  return setsAlone(c.expr) && direction(c.order) !== null;
}

/** How many word operations the query takes over `words` words: one pass a node. */
export function setsCost(e: Expr, words: number): number {
  const nodes = (x: Expr): number =>
    x.kind === 'and' || x.kind === 'or' ? 1 + x.exprs.reduce((n, y) => n + nodes(y), 0) : x.kind === 'not' ? 1 + nodes(x.expr) : 1;
  return nodes(e) * words;
}

/** An in-memory strategy: a page and total from the indexes, or null when it finds it cannot answer after all (SQL then does). */
export type SetStrategy = (db: Database, c: Compiled, offset: number, limit: number, indexes: SetIndexes, budgetMs: number) => Promise<SearchPage | null>;

/** A page and the exact total of a query of sets alone, in id or date order. */
export const setsSearch: SetStrategy = async (db, c, offset, limit, indexes, budgetMs) => {
  const how = direction(c.order);
  if (!how) return null;
  const follows = await current(db, indexes);
  const { posts, version } = indexes;
  // Every post: a slice of the newest order, counted by it.
  if (c.expr.kind === 'all' && !c.before && (how.byDate || follows)) return { ids: posts.page(how.dir, offset, limit), total: posts.size, estimated: false };
  // One range of dates, in date order: a stretch of the newest order.
  if (c.expr.kind === 'num' && c.expr.field === 'created' && c.expr.ranges.length === 1 && how.byDate && !c.before)
    return { ...posts.createdIn(c.expr.ranges[0], how.dir, offset, limit), estimated: false };
  const words = wordsOf(indexes);
  // A narrow range of ids the query ANDs (a new post's event stream asks of a few): its posts are
  // tested one by one and put in date order, rather than the query evaluated over every post.
  // Such one-off queries keep no totals or heads, which the list's own queries need.
  const span = narrowIds(c.expr);
  const inRange = span ? await rangeMatches(db, c, indexes, words, budgetMs, span) : null;
  if (inRange && how.byDate && !follows) {
    const among = { has: (id: number) => inRange.has(id), size: inRange.size };
    const page = datePage(posts, how.dir, offset, limit, among.has, c.before, among);
    return { ids: page.ids, total: c.before ? page.passed : inRange.size, estimated: false };
  }
  if (inRange) {
    const ids = [...inRange].filter((id) => !c.before || id < c.before.id).sort((a, b) => (how.dir === 'desc' ? b - a : a - b));
    return { ids: ids.slice(offset, offset + limit), total: ids.length, estimated: false };
  }
  const stamp = version === undefined ? null : String(version);
  const kept = keptTotalsOf(indexes, c, c.expr, stamp);
  // Pages near the top of a query that had to be evaluated whole, kept from its first ask.
  const heads = c.before || offset + limit > HEAD_POSTS ? null : keptHeadsOf(indexes, c, c.expr, stamp);
  const head = heads?.page(offset, limit);
  if (head) return head;
  const known = kept.known();
  const scratch = new Scratch();
  try {
    const evaluator = new Evaluator(indexes, await fetchSets(db, c.expr, indexes), words, budgetMs, scratch.take, follows);
    // Asked again at the same data version, the total is known: a page near the top is found by
    // testing posts from there, as long as the matches are dense enough to be met soon. Asked for
    // the first time, a query driven by a small set walks all of it and counts what matches.
    if (follows || !how.byDate) {
      const walked = walkedPage(evaluator, c, how.dir, offset, limit, known?.total ?? null, posts.allPosts(words), posts.newestId);
      if (walked && known) return { ids: walked.ids, ...known };
      if (walked) return { ids: walked.ids, ...kept.remember(() => ({ total: walked.total, estimated: false })) };
    }
    const found = evaluator.eval(c.expr);
    if (how.byDate && !follows) {
      const size = sizeOfResult(found, version);
      const inFound = (id: number) => has(found, id);
      const page = datePage(posts, how.dir, offset, limit, inFound, c.before, { has: inFound, size });
      return { ids: page.ids, total: c.before ? page.passed : size, estimated: false };
    }
    const result = c.before ? below(found, c.before.id, words, scratch.take) : found;
    const total = kept.remember(() => ({ total: sizeOfResult(result, version), estimated: false }));
    if (!heads) return { ids: pageOf(result, how.dir, offset, limit), ...total };
    const ids = pageOf(result, how.dir, 0, HEAD_POSTS);
    heads.keep(ids, total, HEAD_POSTS);
    return { ids: ids.slice(offset, offset + limit), ...total };
  } finally {
    scratch.release();
  }
};

/** Membership tests a page found post by post may take at most; past it, the query is evaluated whole. */
const WALK_AT_MOST = 20_000;

/** The ids the query's id ranges bound it to (open ends included: the tests decide), when few enough for its posts to be tested one by one; else null. */
function narrowIds(e: Expr): [number, number] | null {
  let low = -Infinity;
  let high = Infinity;
  for (const x of e.kind === 'and' ? e.exprs : [e]) {
    if (x.kind !== 'num' || x.field !== 'id' || x.ranges.length === 0) continue;
    low = Math.max(low, Math.min(...x.ranges.map((r) => r.lo)));
    high = Math.min(high, Math.max(...x.ranges.map((r) => r.hi)));
  }
  return (high - low + 1) * testsOf(e) <= WALK_AT_MOST ? [low, high] : null;
}

/** The posts of the ids in `span` (narrowIds') that match the query, tested one by one against the kept sets. */
async function rangeMatches(db: Database, c: Compiled, indexes: SetIndexes, words: number, budgetMs: number, span: [number, number]): Promise<Set<number>> {
  const { posts } = indexes;
  const scratch = new Scratch();
  try {
    const evaluator = new Evaluator(indexes, await fetchSets(db, c.expr, indexes), words, budgetMs, scratch.take, false);
    const [low, high] = [Math.max(0, span[0]), Math.min(posts.newestId, span[1])];
    const exists = posts.allPosts(words);
    const test = evaluator.tester(c.expr, true);
    const found = new Set<number>();
    for (let id = high; id >= low; id--) if ((exists[id >>> 5] & (1 << (id & 31))) !== 0 && test(id)) found.add(id);
    return found;
  } finally {
    scratch.release();
  }
}

/**
 * A page in id order found by testing posts one by one from the top (or bottom), and how many
 * matched. With the total known: when `total` matches make the page likely within WALK_AT_MOST
 * tests, stopping once it is full; null when not, or when the walk runs out of tests first. With
 * no total (null): when the driver is small enough to be walked whole within them, counting every
 * match (the total); else null. The posts walked are those of the smallest set listed by id the
 * query ANDs (its driver: every match is one of them), else every post.
 */
function walkedPage(
  evaluator: Evaluator,
  c: Compiled,
  dir: 'asc' | 'desc',
  offset: number,
  limit: number,
  total: number | null,
  exists: Int32Array,
  newestId: number,
): { ids: number[]; total: number } | null {
  const counting = total === null;
  let driver = evaluator.driver(c.expr);
  const [low, high] = evaluator.bounds(c.expr, newestId);
  // A range of ids or dates the query ANDs is walked whole when that costs less than the driver:
  // a driver is read from its top, through every post of it above the range.
  const tests = testsOf(c.expr);
  if (driver && !counting && (high - low + 1) * tests < driver.size * driver.cost) driver = null;
  // What a post walked costs: the tests of the rest of the query, and the merge of a driving union.
  const most = Math.floor(WALK_AT_MOST / (driver ? driver.cost : tests));
  const walked = driver ? driver.size : high - low + 1;
  if (counting ? !driver || walked > most : total === 0 || (Math.min(offset + limit, total) / total) * walked * 2 > most) return null;
  // Every post the driver walks is in it: only the rest of the query is tested.
  const test = evaluator.tester(driver ? without(c.expr, driver.part) : c.expr, dir === 'desc');
  const ids: number[] = [];
  let skip = offset;
  let found = 0;
  const top = Math.min(high, c.before ? c.before.id - 1 : Infinity);
  const take = (id: number) => {
    if (id > top || (exists[id >>> 5] & (1 << (id & 31))) === 0 || !test(id)) return true;
    found++;
    if (skip > 0) skip--;
    else if (ids.length < limit) ids.push(id);
    return counting || ids.length < limit;
  };
  let tested = 0;
  if (driver && dir === 'desc') {
    const walk = driver.descending();
    for (let id = walk.next(); id >= 0; id = walk.next()) {
      if (++tested > most) return null;
      if (!take(id)) break;
    }
    return { ids, total: found };
  }
  if (driver) {
    let over = false;
    eachId(driver.set(), 'asc', (id) => {
      over = ++tested > most;
      return !over && take(id);
    });
    return over ? null : { ids, total: found };
  }
  for (let id = dir === 'desc' ? top : low; id >= low && id <= top; id += dir === 'desc' ? -1 : 1) {
    if (++tested > most) return null;
    if (!take(id)) break;
  }
  return { ids, total: found };
}

/**
 * A page in date order when ids do not follow dates: the newest order walked, each post tested.
 * After a cursor the walk goes on to the end, counting the posts that pass (`passed`). `among`:
 * the set every passing post is in, and its size: once all of it has been met, the rest of the
 * walk would pass nothing, so it stops there (a query with fewer matches than a page walked
 * every post of the board; a new post's stream asks of one post).
 */
export function datePage(
  posts: AllPosts,
  dir: 'asc' | 'desc',
  offset: number,
  limit: number,
  test: (id: number) => boolean,
  before?: { created: number; id: number },
  among?: { has: (id: number) => boolean; size: number },
): { ids: number[]; passed: number } {
  const ids: number[] = [];
  let skip = offset;
  let passed = 0;
  let met = 0;
  if (among?.size === 0) return { ids, passed };
  posts.eachByDate(
    dir,
    (id) => {
      if (among && !among.has(id)) return true;
      const last = among !== undefined && ++met >= among.size;
      if (test(id)) {
        passed++;
        if (skip > 0) skip--;
        else if (ids.length < limit) ids.push(id);
      }
      return !last && (ids.length < limit || before !== undefined);
    },
    before,
  );
  return { ids, passed };
}
