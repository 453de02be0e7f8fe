/** The kept sets a search reads, as the search sees them: what each kind of set offers and how rating and media keys are read. */
import { sql } from 'kysely';
import type { Database } from '../../db/engine.ts';
import type { Rating } from '../../core/schemas.ts';
import type { Interval, MediaKind } from '../expr.ts';
import type { Descending } from './post-set.ts';
import type { KeptHeads, KeptTotals } from './totals.ts';

/** The tag sets this strategy reads (TagSets). */
export interface KeptTags {
  current(db: Database, version?: number): Promise<unknown>;
  has(tagId: number): boolean;
  readonly bitmapWords: number;
  postsOf(tagId: number): { bits: Int32Array } | { ids: Int32Array };
  /** How many posts a kept tag holds at most (a bitmap: every id it can hold); without it, as postsOf says. */
  sizeOf?(tagId: number): number;
  /** Sets the bits of a kept tag's posts in a bitmap without listing them first; without it, from postsOf. */
  markInto?(tagId: number, bits: Int32Array): void;
  /** A kept tag's posts from the highest down, read as they are asked for; without it, from postsOf. */
  descendingOf?(tagId: number): Descending;
  /** Whether the tag is kept as a bitmap (a test is then a bit); without it, postsOf tells. */
  hasBitmap?(tagId: number): boolean;
  /** A listed tag's ids if they are kept decoded (a test is then a binary search), without decoding them. */
  decodedOf?(tagId: number): Int32Array | undefined;
}

/** Every post, newest first (NewestOrder). */
export interface AllPosts {
  /** Brings it up to date; whether newer posts always have higher ids. */
  refreshAt(db: Database, version?: number): Promise<boolean>;
  readonly newestId: number;
  allPosts(words: number): Int32Array;
  /** How many posts there are. */
  readonly size: number;
  /** A page of every post in date order (newest first: 'desc'). */
  page(dir: 'asc' | 'desc', offset: number, limit: number): number[];
  /** A page of the posts created in a range of times, in date order, and how many there are. */
  createdIn(r: Interval, dir: 'asc' | 'desc', offset: number, limit: number): { ids: number[]; total: number };
  /** The id range of the posts created in a range of times, while ids follow dates (null: none). */
  idsCreatedIn(r: Interval): [number, number] | null;
  /** Sets the bits of the posts created in a range of times (ids past the bitmap's end are left out). */
  markCreatedIn(r: Interval, bits: Int32Array): void;
  /**
   * Visits post ids in date order, newest first ('desc') or oldest first, until `visit` returns
   * false; newest first, it may start after a cursor (the posts older than it).
   */
  eachByDate(dir: 'asc' | 'desc', visit: (id: number) => boolean, after?: { created: number; id: number }): void;
}

export type CountField = 'likes' | 'favs' | 'comments';

/** The counts of every post, kept current with the data (PostNumbers). */
export interface KeptNumbers {
  /** Brings the counts up to date, for posts up to `newestId` at least; the counts' counter as read (they are at least that new). */
  current(db: Database, newestId: number): Promise<number>;
  /** A post's count (0 for a post it does not know). */
  column(field: CountField): (id: number) => number;
  /** The first posts in the order of a count (highest first, the higher id first among equals): a prefix of that order over every post. */
  leading(field: CountField): Int32Array;
  /**
   * A count of every post as an array by id (past its end: 0), for loops over many posts without
   * a call a post; where it holds `capped`, the count is at least that and column() gives it.
   */
  values(field: CountField): { array: Uint8Array | Int32Array; capped: number };
}

export interface SetIndexes {
  tags: KeptTags;
  /** The posts of each rating (keys: RATING_KEYS) and of each kind of media (KINDS_OF), kept like the tags. */
  ratings: KeptTags;
  kinds: KeptTags;
  /** The posts of each uploader (by user id), kept like the tags; without them, read by key. */
  uploaders?: KeptTags;
  /** The posts of each title word (by its id in title_vocab), kept like the tags; without them, read by key. */
  words?: KeptTags;
  posts: AllPosts;
  /** The posts' counts (likes, favs, comments), for the columns strategy. */
  numbers?: KeptNumbers;
  /** Totals the columns strategy worked out, kept while the data and counts stay as they were. */
  totals?: KeptTotals;
  /** The first pages of orders by a count the columns strategy ranked, and of queries this strategy evaluated whole, kept the same way. */
  heads?: KeptHeads;
  /** The data version as the request read it: the indexes need not read it again to know they are current. */
  version?: number;
}

/** The keys of the rating sets: a post's key is its rating's place here. */
export const RATING_KEYS: readonly Rating[] = ['safe', 'sketchy', 'unsafe'];
/** Which keys of the media-kind sets (0 still image, 1 video, 2 animated image) a `type:` value stands for. */
export const KINDS_OF: Record<MediaKind, number[]> = { image: [0, 2], video: [1], gif: [2] };
/** A post's key in the rating and the kind sets, as SQL over posts. */
export const RATING_KEY = sql`(CASE content_rating WHEN 'safe' THEN 0 WHEN 'sketchy' THEN 1 ELSE 2 END)`;
export const KIND_KEY = sql`(CASE WHEN media_type = 'video' THEN 1 WHEN is_animated = 1 THEN 2 ELSE 0 END)`;

/** A kind of set read by key: a tag's posts, a user's favorites or uploads, a pool's, a rating's, a kind of media's. */
export type SetKind = 'tags' | 'fav' | 'uploader' | 'pool' | 'rating' | 'kind' | 'word';
