import { poolDescription, poolName } from './names.ts';
import { DAY, countUpTo } from './plan.ts';
import type { Random } from './random.ts';

/**
 * Draws k distinct users out of n. Few: rejection against a set; many: a partial Fisher-Yates
 * over a permutation kept between calls (any permutation will do as a starting point).
 */
export class DistinctUsers {
  private readonly scratch: Int32Array;

  constructor(
    private readonly n: number,
    private readonly rng: Random,
  ) {
    this.scratch = Int32Array.from({ length: n }, (_, i) => i);
  }

  pick(k: number): number[] {
    const { n, rng, scratch } = this;
    if (k > n) throw new RangeError(`cannot draw ${k} distinct users out of ${n}`);
    if (k * 4 <= n) {
      const chosen = new Set<number>();
      while (chosen.size < k) chosen.add(rng.int(n));
      return [...chosen];
    }
    for (let j = 0; j < k; j++) {
      const r = j + rng.int(n - j);
      const tmp = scratch[j];
      scratch[j] = scratch[r];
      scratch[r] = tmp;
    }
    return Array.from(scratch.subarray(0, k));
  }
}

/** A moment after both `a` and `b`, no later than `until`, skewed towards the start. */
export function momentAfter(a: number, b: number, until: number, rng: Random): number {
  const from = Math.max(a, b);
  return from + Math.floor((until - from) * rng.next() ** 2);
}

export interface PoolPlan {
  creator: number;
  createdAt: number;
  updatedAt: number;
  name: string;
  description: string;
  isPublic: boolean;
  /** Post indexes in position order, with when each was added. */
  posts: number[];
  addedAt: number[];
}

/**
 * About one pool per hundred posts (at least one from ten posts on), 5-30 posts each taken from
 * a stretch of neighbouring posts like a series, one in ten private. Sorted by creation, so pool
 * ids follow created_at.
 */
export function planPools(postCreated: Float64Array, userCreated: Float64Array, until: number, pickUser: () => number, rng: Random): PoolPlan[] {
  const posts = postCreated.length;
  const count = posts >= 10 ? Math.max(1, Math.round(posts / 100)) : 0;
  const pools = Array.from({ length: count }, () => {
    const size = Math.min(posts, rng.between(5, 30));
    const window = Math.min(posts, size * 3);
    const first = rng.int(posts - window + 1);
    const members = rng
      .shuffle(Array.from({ length: window }, (_, j) => first + j))
      .slice(0, size)
      .sort((a, b) => a - b);
    let creator = pickUser();
    if (userCreated[creator] > postCreated[members[0]]) creator = rng.int(countUpTo(userCreated, postCreated[members[0]]));
    const createdAt = Math.min(until, Math.max(postCreated[members[0]], userCreated[creator]) + rng.int(2 * DAY));
    const addedAt = members.map((p) => Math.min(until, Math.max(createdAt, postCreated[p]) + rng.int(3 * DAY)));
    return {
      creator,
      createdAt,
      updatedAt: Math.max(createdAt, ...addedAt),
      name: poolName(rng),
      description: poolDescription(rng),
      isPublic: !rng.chance(0.1),
      posts: members,
      addedAt,
    };
  });
  return pools.sort((a, b) => a.createdAt - b.createdAt);
}
