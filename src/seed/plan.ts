import { tagNames } from './names.ts';
import { type Random, Zipf } from './random.ts';

/**
 * The parts of the synthetic board that later rows depend on, worked out before anything is
 * written: when users joined and posts were made, which tags each post has, and how many likes,
 * favourites and comments each post gets (every stored counter comes from here). Large
 * per-post data lives in typed arrays so a million posts stay cheap.
 */

export const DAY = 86_400_000;
/** Posts are spread over this long before --until. */
export const WINDOW_MS = 730 * DAY;

/**
 * n strictly increasing integer times in [from, to]: stratified (one per slot, jittered) and
 * bent by `skew` < 1 so that later stretches are busier, as on a growing board.
 */
export function spreadTimes(n: number, from: number, to: number, rng: Random, skew = 1): Float64Array {
  const out = new Float64Array(n);
  const span = to - from;
  let previous = from - 1;
  for (let i = 0; i < n; i++) {
    const x = (i + rng.next()) / n;
    const t = Math.max(previous + 1, from + Math.floor(span * x ** skew));
    out[i] = t;
    previous = t;
  }
  return out;
}

/** How many of the (ascending) times are at or before t. */
export function countUpTo(sorted: Float64Array, t: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export interface Tagging {
  /** Post i's tag ids are tagIds[offsets[i] .. offsets[i + 1]), ascending. */
  offsets: Int32Array;
  tagIds: Int32Array;
  /** Indexed by tag id - 1; ids follow first use, so newer tags have higher ids. */
  names: string[];
  postCount: Int32Array;
  createdAt: Float64Array;
}

/** Distinct Zipf-chosen ranks for one post, written to out[at ..]; falls back to a scan if unlucky. */
function pickRanks(k: number, zipf: Zipf, rng: Random, out: Int32Array, at: number): void {
  let have = 0;
  for (let tries = 0; have < k && tries < 20 * k; tries++) {
    const rank = zipf.sample(rng);
    let dup = false;
    for (let j = at; j < at + have; j++) if (out[j] === rank) dup = true;
    if (!dup) out[at + have++] = rank;
  }
  for (let rank = rng.int(zipf.n); have < k; rank = (rank + 1) % zipf.n) {
    let dup = false;
    for (let j = at; j < at + have; j++) if (out[j] === rank) dup = true;
    if (!dup) out[at + have++] = rank;
  }
}

/**
 * Tags for every post: about `perPost` each (perPost +- a third), distinct, drawn with a Zipf
 * law (exponent 1) over the tag list, whose order is its popularity. A tag is created when
 * first used; tags nobody drew are created at the start of the window.
 */
export function planTagging(postCreated: Float64Array, tagCount: number, perPost: number, start: number, rng: Random): Tagging {
  const posts = postCreated.length;
  const spread = Math.floor(perPost / 3);
  const most = Math.min(tagCount, 64);
  const offsets = new Int32Array(posts + 1);
  for (let i = 0; i < posts; i++) {
    const k = Math.max(0, Math.min(most, perPost + (spread ? rng.between(-spread, spread) : 0)));
    offsets[i + 1] = offsets[i] + k;
  }
  const zipf = new Zipf(tagCount, 1);
  const ranks = new Int32Array(offsets[posts]);
  for (let i = 0; i < posts; i++) pickRanks(offsets[i + 1] - offsets[i], zipf, rng, ranks, offsets[i]);

  const uses = new Int32Array(tagCount);
  const firstUse = new Float64Array(tagCount).fill(start);
  const seen = new Uint8Array(tagCount);
  for (let i = 0; i < posts; i++) {
    for (let j = offsets[i]; j < offsets[i + 1]; j++) {
      const rank = ranks[j];
      uses[rank]++;
      if (!seen[rank]) {
        seen[rank] = 1;
        firstUse[rank] = postCreated[i];
      }
    }
  }
  const byCreation = Array.from({ length: tagCount }, (_, r) => r).sort((a, b) => firstUse[a] - firstUse[b] || a - b);
  const idOfRank = new Int32Array(tagCount);
  byCreation.forEach((rank, index) => (idOfRank[rank] = index + 1));

  const names = tagNames(tagCount, rng);
  const tagIds = ranks.map((rank) => idOfRank[rank]);
  for (let i = 0; i < posts; i++) tagIds.subarray(offsets[i], offsets[i + 1]).sort();
  return {
    offsets,
    tagIds,
    names: byCreation.map((rank) => names[rank]),
    postCount: Int32Array.from(byCreation, (rank) => uses[rank]),
    createdAt: Float64Array.from(byCreation, (rank) => firstUse[rank]),
  };
}

/**
 * Spreads `total` reactions over n posts, each post drawn by `pick`, none past `cap` (a post
 * cannot be liked by more users than exist). A full post is redrawn a few times, then the next
 * post with room is taken, so the loop always ends.
 */
export function reactionCounts(n: number, total: number, cap: number, pick: () => number, rng: Random): Int32Array {
  const counts = new Int32Array(n);
  // At most half full, so the search for a post with room stays short even with very few users.
  const wanted = Math.min(total, Math.floor((n * cap) / 2));
  for (let placed = 0; placed < wanted; placed++) {
    let post = pick();
    for (let tries = 0; counts[post] >= cap && tries < 8; tries++) post = pick();
    if (counts[post] >= cap) {
      post = rng.int(n);
      while (counts[post] >= cap) post = (post + 1) % n;
    }
    counts[post]++;
  }
  return counts;
}

export interface CommentPlan {
  /** Indexed by comment id - 1; ids follow created_at. post and user are 0-based indexes. */
  post: Int32Array;
  user: Int32Array;
  time: Float64Array;
  /** Parent comment id, or 0 for a top-level comment. */
  parent: Int32Array;
  replies: Int32Array;
}

/**
 * Comments for every post (perPost[i] of them on post i), each after both the post and its
 * author existed, skewed towards the post's first days. About 30% are replies to an earlier
 * comment on the same post; the first comment on a post cannot be one, so the rest reply more
 * often to make up. Ids are then given in created_at order, so a reply's id is above its parent's.
 */
export function planComments(
  perPost: Int32Array,
  postCreated: Float64Array,
  userCreated: Float64Array,
  until: number,
  pickUser: () => number,
  rng: Random,
): CommentPlan {
  const total = perPost.reduce((a, b) => a + b, 0);
  const firsts = perPost.reduce((a, b) => a + (b > 0 ? 1 : 0), 0);
  const replyChance = total > firsts ? Math.min(0.95, (0.3 * total) / (total - firsts)) : 0;
  const post = new Int32Array(total);
  const user = new Int32Array(total);
  const time = new Float64Array(total);
  const parentAt = new Int32Array(total).fill(-1);
  let at = 0;
  for (let p = 0; p < perPost.length; p++) {
    const local = Array.from({ length: perPost[p] }, () => {
      const u = pickUser();
      const from = Math.max(postCreated[p], userCreated[u]);
      return { u, t: from + Math.floor((until - from) * rng.next() ** 3) };
    }).sort((a, b) => a.t - b.t);
    local.forEach(({ u, t }, j) => {
      post[at + j] = p;
      user[at + j] = u;
      time[at + j] = t;
      if (j > 0 && rng.chance(replyChance)) parentAt[at + j] = at + rng.int(j);
    });
    at += local.length;
  }
  const order = Int32Array.from({ length: total }, (_, i) => i).sort((a, b) => time[a] - time[b] || a - b);
  const idAt = new Int32Array(total);
  order.forEach((g, index) => (idAt[g] = index + 1));
  const plan: CommentPlan = {
    post: order.map((g) => post[g]),
    user: order.map((g) => user[g]),
    time: Float64Array.from(order, (g) => time[g]),
    parent: order.map((g) => (parentAt[g] >= 0 ? idAt[parentAt[g]] : 0)),
    replies: new Int32Array(total),
  };
  for (const parent of plan.parent) if (parent > 0) plan.replies[parent - 1]++;
  return plan;
}
