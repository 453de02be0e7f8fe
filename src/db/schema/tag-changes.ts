/** How many changes the log (tag_changes) keeps: a reader further behind reads every tag again. */
export const TAG_CHANGES_KEPT = 10_000;

/** The statement, run by the triggers that write the log, that drops entries past the newest TAG_CHANGES_KEPT. */
export const PRUNE_CHANGES = `DELETE FROM tag_changes WHERE seq <= (SELECT max(seq) FROM tag_changes) - ${TAG_CHANGES_KEPT};`;
