import { jobRef } from '../../jobs/job-kind.ts';

/**
 * The jobs a change of tag relations starts on posts: their names and parameters. The posts module
 * does the work (posts/posts.retag.ts, posts/implication-backfill.job.ts), registered by
 * src/job-kinds.ts; the tags services start them by these names.
 */
export interface AliasRetagParams {
  /** The alias name, and the ids of its old tag and of its target. */
  from: string;
  fromId: number;
  toId: number;
}

/** Moves the posts of an alias's old tag to its target. */
export const ALIAS_RETAG = jobRef<AliasRetagParams>('alias-retag');

export interface TagRenameParams {
  tagId: number;
  /** The name the tag had: what the posts' tag strings hold. */
  from: string;
}

/** Rewrites the tag strings of a renamed tag's posts. */
export const TAG_RENAME = jobRef<TagRenameParams>('tag-rename');

export interface BackfillParams {
  fromId: number;
  toId: number;
}

/** Gives the posts of an implication's antecedent its consequents. */
export const IMPLICATION_BACKFILL = jobRef<BackfillParams>('tag-implication-backfill');
