/**
 * A query as the engine evaluates it: the parse tree with names resolved (tags to ids, users and
 * pools to ids) and metatag values turned into typed sets of values. The executors (SQL, the
 * in-memory sets) and the reference evaluator of the tests read this and nothing else.
 */

import type { Rating } from '../core/schemas.ts';

/** Post columns a number range applies to; `created` is the creation time in ms since the epoch (UTC). */
export type NumField = 'id' | 'likes' | 'favs' | 'comments' | 'width' | 'height' | 'filesize' | 'duration' | 'tagcount' | 'created';

/** Values from `lo` to `hi`; a bound is excluded when its `Open` flag is set. ±Infinity for no bound. */
export interface Interval {
  lo: number;
  hi: number;
  loOpen?: boolean;
  hiOpen?: boolean;
}

export type MediaKind = 'image' | 'video' | 'gif';

export type Expr =
  | { kind: 'all' }
  | { kind: 'none' }
  /** Posts with any one of the tags (one tag, or a wildcard's expansion). */
  | { kind: 'tags'; ids: number[] }
  /** A number column in any of the intervals; a post whose column is null (an image's duration) is in none. */
  | { kind: 'num'; field: NumField; ranges: Interval[] }
  | { kind: 'rating'; values: Rating[] }
  | { kind: 'type'; values: MediaKind[] }
  | { kind: 'uploader'; userId: number }
  | { kind: 'fav'; userId: number }
  | { kind: 'pool'; poolId: number }
  /** In at least one pool. */
  | { kind: 'pooled' }
  /** The post's parent is this post (parent:ID). */
  | { kind: 'parent'; postId: number }
  /** The post has a parent (has:parent, parent:any). */
  | { kind: 'hasParent' }
  /** Some post has this one as its parent (has:children). */
  | { kind: 'hasChildren' }
  /**
   * The title contains the text, case-insensitively (the text is lower case). `words`: the ids of
   * the title words (title_vocab) that contain it, when it is one word's worth of text and few
   * words do: its posts are then theirs, and the in-memory strategies can read them as sets.
   */
  | { kind: 'title'; text: string; words?: number[] }
  | { kind: 'hash'; algo: 'sha256' | 'md5'; hex: string }
  | { kind: 'not'; expr: Expr }
  | { kind: 'and'; exprs: Expr[] }
  | { kind: 'or'; exprs: Expr[] };

/** Columns a result is ordered by; every order ends with the post id, descending, unless it says otherwise. */
export type OrderField = 'created' | 'id' | 'likes' | 'favs' | 'comments' | 'filesize' | 'duration' | 'tagcount' | 'random' | 'pool';

export interface OrderKey {
  field: OrderField;
  dir: 'asc' | 'desc';
  /** `pool`: the pool whose order it is (the query's own pool:ID, set when it is compiled). */
  poolId?: number;
}

/** Whether two orders are the same keys: by value, since an order that crossed threads is a copy. */
export function sameOrder(a: readonly OrderKey[], b: readonly OrderKey[]): boolean {
  return a.length === b.length && a.every((k, i) => k.field === b[i].field && k.dir === b[i].dir && k.poolId === b[i].poolId);
}

/** The orders `order:` takes, each as its keys (the last key breaks every tie). */
export const ORDERS = {
  newest: [
    { field: 'created', dir: 'desc' },
    { field: 'id', dir: 'desc' },
  ],
  oldest: [
    { field: 'created', dir: 'asc' },
    { field: 'id', dir: 'asc' },
  ],
  id: [{ field: 'id', dir: 'desc' }],
  id_asc: [{ field: 'id', dir: 'asc' }],
  likes: [
    { field: 'likes', dir: 'desc' },
    { field: 'id', dir: 'desc' },
  ],
  likes_asc: [
    { field: 'likes', dir: 'asc' },
    { field: 'id', dir: 'desc' },
  ],
  favs: [
    { field: 'favs', dir: 'desc' },
    { field: 'id', dir: 'desc' },
  ],
  comments: [
    { field: 'comments', dir: 'desc' },
    { field: 'id', dir: 'desc' },
  ],
  filesize: [
    { field: 'filesize', dir: 'desc' },
    { field: 'id', dir: 'desc' },
  ],
  duration: [
    { field: 'duration', dir: 'desc' },
    { field: 'id', dir: 'desc' },
  ],
  tagcount: [
    { field: 'tagcount', dir: 'desc' },
    { field: 'id', dir: 'desc' },
  ],
  random: [
    { field: 'random', dir: 'asc' },
    { field: 'id', dir: 'desc' },
  ],
  /** The order of the query's pool:ID (a comic's pages), as Danbooru's ordpool: gives it. */
  pool: [
    { field: 'pool', dir: 'asc' },
    { field: 'id', dir: 'asc' },
  ],
} as const satisfies Record<string, readonly OrderKey[]>;

export type OrderName = keyof typeof ORDERS;

/**
 * The old sortBy values, with the tie-breaks they always had (the date, then the id). They
 * compile into the same keys as `order:`.
 */
export const SORT_ORDERS = {
  newest: ORDERS.newest,
  oldest: ORDERS.oldest,
  most_liked: [{ field: 'likes', dir: 'desc' }, ...ORDERS.newest],
  most_commented: [{ field: 'comments', dir: 'desc' }, ...ORDERS.newest],
  most_favorited: [{ field: 'favs', dir: 'desc' }, ...ORDERS.newest],
} as const satisfies Record<string, readonly OrderKey[]>;

/** Where order:random puts a post, for a seed: the same in SQL and in JavaScript (integers below 2^53 throughout). */
export const RANDOM_MODULUS = 2_147_483_647;
export const RANDOM_MULTIPLIER = 48_271;
export function randomRank(id: number, seed: number): number {
  return ((id + seed) * RANDOM_MULTIPLIER) % RANDOM_MODULUS;
}

/** A wildcard as expanded: the tags it stands for, and whether it hit the cap. */
export interface Wildcard {
  pattern: string;
  tags: string[];
  capped: boolean;
}

/** A compiled query: what to match, in what order, from where (`before`), with what seed for order:random. */
export interface Compiled {
  expr: Expr;
  order: readonly OrderKey[];
  /** Only posts older than this one (newest order): the keyset cursor. */
  before?: { created: number; id: number };
  seed: number;
  wildcards: Wildcard[];
}
