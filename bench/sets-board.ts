import { Random } from '../src/seed/random.ts';

/**
 * The synthetic board of bench/sets-micro.ts, and the queries drawn from it: the same for every
 * process that is given the same seed.
 */

export const POSTS = 1_000_000;
export const TAGS = 30_000;
/** Tags a post has on average. */
const PER_POST = 10;
/** The share of posts the most used tag is on. */
const TOP_SHARE = 0.5;
/** Posts whose tags are kept, to draw queries from. */
const SAMPLE = 5_000;
export const QUERIES = 1_000;

/**
 * Tag `r` (1 = most used, also its id) is on each post with chance min(TOP_SHARE, c / r),
 * independently of the post and of other tags, c set so posts have PER_POST tags on average: a
 * Zipf law of exponent 1, its head cut at TOP_SHARE. Post ids 1..POSTS, none deleted; each tag's
 * ids ascending. Ratings as the seeder draws them (safe 70%); only safe is used.
 */
export function makeBoard(seed: number) {
  const rng = new Random(seed, 'board');
  const share = (c: number, r: number) => Math.min(TOP_SHARE, c / r);
  let lo = 0;
  let hi = 10;
  for (let i = 0; i < 60; i++) {
    const c = (lo + hi) / 2;
    let mean = 0;
    for (let r = 1; r <= TAGS; r++) mean += share(c, r);
    if (mean < PER_POST) lo = c;
    else hi = c;
  }
  const sampleOf = new Int32Array(POSTS + 1).fill(-1);
  const sample: number[][] = [];
  for (let i = 0; i < SAMPLE; i++) {
    const id = 1 + rng.int(POSTS);
    if (sampleOf[id] < 0) sampleOf[id] = sample.push([]) - 1;
  }
  const scratch = new Int32Array(POSTS);
  const tags: Int32Array[] = [new Int32Array(0)];
  for (let r = 1; r <= TAGS; r++) {
    // The gaps between a tag's posts are geometric: one draw a post of the tag, not one a post.
    const logMiss = Math.log(1 - share(lo, r));
    const gap = () => 1 + Math.floor(Math.log(1 - rng.next()) / logMiss);
    let n = 0;
    for (let id = gap(); id <= POSTS; id += gap()) {
      scratch[n++] = id;
      if (sampleOf[id] >= 0) sample[sampleOf[id]].push(r);
    }
    tags.push(scratch.slice(0, n));
  }
  let n = 0;
  for (let id = 1; id <= POSTS; id++) if (rng.next() < 0.7) scratch[n++] = id;
  return { c: lo, tags, safe: scratch.slice(0, n), sample: sample.filter((t) => t.length >= 2) };
}
export type Board = ReturnType<typeof makeBoard>;

/**
 * A query: a tag, the safe rating, a wildcard (any of its tags), AND with NOT, or OR. The rating
 * is made from its kept sets as src/search/sets/evaluate.ts does (`union`: a copy when it is one), or is
 * its kept set itself (`kept`).
 */
export type Q = { tag: number } | { safe: 'union' | 'kept' } | { any: number[] } | { and: Q[]; not: Q[] } | { or: Q[] };

/** The five shapes, each QUERIES distinct queries, drawn as bench/scenarios.ts draws its q-* ones. */
export function queries(board: Board, seed: number): { name: string; qs: Q[] }[] {
  const rng = new Random(seed, 'queries');
  // A tag of a random post: tags come as often as they are used.
  const tagOf = () => rng.pick(rng.pick(board.sample));
  const top20 = () => 1 + rng.int(20);
  const mid = () => 200 + rng.int(1_601);
  // Two tags of one post: its most used and its least used.
  const pair = () => {
    const t = rng.pick(board.sample);
    return [Math.min(...t), Math.max(...t)];
  };
  const shapes: [string, () => Q][] = [
    ['tag -common (top 20)', () => ({ and: [{ tag: tagOf() }], not: [{ tag: top20() }] })],
    ['a or b or c (ranks 200-1,800)', () => ({ or: [{ tag: mid() }, { tag: mid() }, { tag: mid() }] })],
    [
      'a b -c rating:safe',
      () => {
        const [a, b] = pair();
        return { and: [{ tag: a }, { tag: b }, { safe: 'union' }], not: [{ tag: top20() }] };
      },
    ],
    [
      '(a -b) or (c d)',
      () => {
        const [[a, b], [c, d]] = [pair(), pair()];
        return {
          or: [
            { and: [{ tag: a }], not: [{ tag: b }] },
            { and: [{ tag: c }, { tag: d }], not: [] },
          ],
        };
      },
    ],
    [
      'wildcard (100 tags) and a tag',
      () => {
        // A prefix's tags: names are not ordered by use, so any tag may match.
        const any = new Set<number>();
        for (let i = 0; i < 1_000 && any.size < 100; i++) any.add(1 + rng.int(TAGS));
        return { and: [{ any: [...any] }, { tag: tagOf() }], not: [] };
      },
    ],
  ];
  const drawn = shapes.map(([name, draw]) => {
    const seen = new Map<string, Q>();
    for (let i = 0; i < 20 * QUERIES && seen.size < QUERIES; i++) {
      const q = draw();
      seen.set(JSON.stringify(q), q);
    }
    return { name, qs: [...seen.values()] };
  });
  // The same queries again with the rating's kept set used as it is: what the copy costs.
  const kept = (q: Q): Q => ('safe' in q ? { safe: 'kept' } : 'and' in q ? { and: q.and.map(kept), not: q.not } : q);
  drawn.splice(3, 0, { name: 'the same, the rating not copied', qs: drawn[2].qs.map(kept) });
  return drawn;
}

/** The tags of a query, each as often as it appears. */
export function leaves(q: Q): number[] {
  if ('tag' in q) return [q.tag];
  if ('safe' in q) return [];
  if ('any' in q) return q.any;
  if ('or' in q) return q.or.flatMap(leaves);
  return [...q.and, ...q.not].flatMap(leaves);
}
