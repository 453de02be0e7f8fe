/**
 * How many changes the log (tag_changes) keeps: a reader further behind reads every set again.
 * An implication's backfill logs a link a post and tag (about 400 a job step), so the log must
 * hold the steps of the seconds a process may go without a request.
 */
export const TAG_CHANGES_KEPT = 100_000;

/** The statement, run by the triggers that write the log, that drops entries past the newest TAG_CHANGES_KEPT. */
export const PRUNE_KEPT_CHANGES = `DELETE FROM tag_changes WHERE seq <= (SELECT max(seq) FROM tag_changes) - ${TAG_CHANGES_KEPT};`;

/** The pruning of migration 001, which keeps it: its triggers kept the newest 10,000 until migration 011 replaced them. */
export const PRUNE_CHANGES = 'DELETE FROM tag_changes WHERE seq <= (SELECT max(seq) FROM tag_changes) - 10000;';

/**
 * What an entry of the log says changed (its `what`, bits; migration 011), so each kind of set
 * kept in memory reads again only the posts whose data it keeps. Entries written before 011 say
 * ALL_CHANGED. Never renumbered: migration 011 wrote these numbers into the triggers.
 */
export const CHANGED = {
  tags: 1,
  title: 2,
  rating: 4,
  /** The post was deleted. */
  gone: 8,
  /** The post gained the tag `tag_id` and nothing else changed (an implication's backfill). */
  tagAdded: 16,
  /** The post was published from the approval queue, under an id below the newest (modules/approval/). */
  published: 32,
} as const;
export const ALL_CHANGED = CHANGED.tags | CHANGED.title | CHANGED.rating | CHANGED.gone;
/**
 * The entry of a post published from the approval queue: every kind of set reads the post as it
 * would after an edit of it (each one's mask meets ALL_CHANGED), since a post below the highest id
 * is not found by reading the ids above it. `gone` is among the bits: a reader of deletes keeps
 * only posts that no longer exist.
 */
export const PUBLISHED_CHANGE = ALL_CHANGED | CHANGED.published;
