import type { CommentPlan, Tagging } from './plan.ts';

/** What a seed run is asked for, and the plan it makes before writing (shared by generate.ts and tables.ts). */

export interface SeedOptions {
  posts: number;
  /** Default max(10, posts / 50). */
  users?: number;
  /** Default posts / 20, kept within 50..50,000. */
  tags?: number;
  /** Average tags a post; default 10. */
  tagsPerPost?: number;
  /** Default 1. The same seed and `until` give the same rows. */
  seed?: number;
  /** Epoch ms; posts are spread over the two years before it. No default: callers choose "now". */
  until: number;
  /** Where media files go (DATA_DIR/media); null writes none (--no-media), paths are still filled. */
  mediaDir: string | null;
}

export interface Resolved extends Required<Omit<SeedOptions, 'mediaDir'>> {
  mediaDir: string | null;
  start: number;
}

export type ProgressFn = (phase: string, done: number, total: number) => void;

export interface Plan {
  userCreated: Float64Array;
  postCreated: Float64Array;
  tagging: Tagging;
  likes: Int32Array;
  favorites: Int32Array;
  comments: CommentPlan;
  commentsPerPost: Int32Array;
}
