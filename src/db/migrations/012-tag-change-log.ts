import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

/** How many changes the log keeps: a reader further behind reads every tag again. */
export const TAG_CHANGES_KEPT = 10_000;

/** The statement that drops entries past the newest TAG_CHANGES_KEPT. */
export const PRUNE_CHANGES = `DELETE FROM tag_changes WHERE seq <= (SELECT max(seq) FROM tag_changes) - ${TAG_CHANGES_KEPT};`;

/**
 * tag_changes: the posts whose tags changed (an edit of their tags, or a delete), in the order
 * the changes were committed, so a process keeping tag data in memory (tag-sets.ts) can catch
 * up with them instead of reading every tag again. New posts are not logged: they are the ids
 * above the highest one a reader has seen. Only the newest TAG_CHANGES_KEPT entries are kept.
 *
 * On PostgreSQL the entries are written by statement triggers that fire after the ones that move
 * the data version (posts_counted_*: triggers fire in name order), so each writer numbers its
 * entries while it holds the lock on the version row: numbers are handed out in commit order
 * and a reader never sees a later entry before an earlier one commits. SQLite has one writer.
 */
/**
 * PostgreSQL: the function (after CREATE or CREATE OR REPLACE) that logs the updated posts for
 * which `changed` holds, a condition on their old (`o`) and new (`n`) rows.
 */
export function loggedUpdate(changed: string): string {
  return `FUNCTION posts_tags_logged_update() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO tag_changes (post_id) SELECT n.id FROM old_rows o JOIN new_rows n ON n.id = o.id
        WHERE ${changed} ORDER BY n.id;
      IF FOUND THEN ${PRUNE_CHANGES} END IF;
      RETURN NULL;
    END $$`;
}

export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  const prune = PRUNE_CHANGES;
  if (dialect === 'sqlite') {
    await sql.raw('CREATE TABLE tag_changes (seq INTEGER PRIMARY KEY AUTOINCREMENT, post_id INTEGER NOT NULL)').execute(db);
    await sql.raw(`CREATE TRIGGER posts_tags_logged_update AFTER UPDATE OF tag_string ON posts WHEN old.tag_string IS NOT new.tag_string
      BEGIN INSERT INTO tag_changes (post_id) VALUES (new.id); ${prune} END`).execute(db);
    await sql.raw(`CREATE TRIGGER posts_tags_logged_delete AFTER DELETE ON posts
      BEGIN INSERT INTO tag_changes (post_id) VALUES (old.id); ${prune} END`).execute(db);
    return;
  }
  await sql.raw('CREATE TABLE tag_changes (seq integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY, post_id integer NOT NULL)').execute(db);
  await sql.raw(`CREATE ${loggedUpdate('n.tag_string IS DISTINCT FROM o.tag_string')}`).execute(db);
  await sql.raw(`
    CREATE FUNCTION posts_tags_logged_delete() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO tag_changes (post_id) SELECT id FROM old_rows ORDER BY id;
      IF FOUND THEN ${prune} END IF;
      RETURN NULL;
    END $$`).execute(db);
  await sql.raw(`CREATE TRIGGER posts_tags_logged_update AFTER UPDATE ON posts REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION posts_tags_logged_update()`).execute(db);
  await sql.raw(`CREATE TRIGGER posts_tags_logged_delete AFTER DELETE ON posts REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION posts_tags_logged_delete()`).execute(db);
}
