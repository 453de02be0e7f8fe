import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';
import { ALL_CHANGED, CHANGED, PRUNE_KEPT_CHANGES } from '../schema/tag-changes.ts';

/**
 * Each entry of the change log (tag_changes) says what changed: `what` (bits of CHANGED: tags,
 * title, rating, deleted) and, for a link added alone, its tag (`tag_id`). Before, an entry named
 * only a post, so every kind of set kept in memory (tags, title words, ratings, kinds of media,
 * uploaders) read that post again and marked it stale in its lists: an implication's backfill,
 * which adds one tag to 200 posts a step, made every process re-read titles and ratings it had
 * not touched, and rewrite its tag lists every few seconds. The triggers are written anew to
 * fill `what`, and to keep the newest 100,000 entries instead of 10,000 (TAG_CHANGES_KEPT).
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  await sql.raw(`ALTER TABLE tag_changes ADD COLUMN what integer NOT NULL DEFAULT ${ALL_CHANGED}`).execute(db);
  await sql.raw('ALTER TABLE tag_changes ADD COLUMN tag_id integer').execute(db);
  if (dialect === 'sqlite') return sqliteTriggers(db);
  // PostgreSQL logs from one statement trigger on every update of posts and one on deletes (migrations 001 and 003): their functions are replaced.
  const bit = (column: string, flag: number) => `CASE WHEN n.${column} IS DISTINCT FROM o.${column} THEN ${flag} ELSE 0 END`;
  const what = [bit('tag_string', CHANGED.tags), bit('title', CHANGED.title), bit('content_rating', CHANGED.rating)].join(' | ');
  await sql
    .raw(`CREATE OR REPLACE FUNCTION posts_tags_logged_update() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO tag_changes (post_id, what) SELECT id, what FROM (
        SELECT n.id, ${what} AS what FROM old_rows o JOIN new_rows n ON n.id = o.id) c
        WHERE what <> 0 ORDER BY id;
      IF FOUND THEN ${PRUNE_KEPT_CHANGES} END IF;
      RETURN NULL;
    END $$`)
    .execute(db);
  await sql
    .raw(`CREATE OR REPLACE FUNCTION posts_tags_logged_delete() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO tag_changes (post_id, what) SELECT id, ${CHANGED.gone} FROM old_rows ORDER BY id;
      IF FOUND THEN ${PRUNE_KEPT_CHANGES} END IF;
      RETURN NULL;
    END $$`)
    .execute(db);
}

/** SQLite has a trigger for each column (migrations 001 and 003): each is made again with its bit. */
async function sqliteTriggers(db: Kysely<any>): Promise<void> {
  const updates: [string, string, number][] = [
    ['posts_tags_logged_update', 'tag_string', CHANGED.tags],
    ['posts_title_logged_update', 'title', CHANGED.title],
    ['posts_rating_logged_update', 'content_rating', CHANGED.rating],
  ];
  for (const [name, column, flag] of updates) {
    await sql.raw(`DROP TRIGGER ${name}`).execute(db);
    await sql
      .raw(`CREATE TRIGGER ${name} AFTER UPDATE OF ${column} ON posts WHEN old.${column} IS NOT new.${column}
      BEGIN INSERT INTO tag_changes (post_id, what) VALUES (new.id, ${flag}); ${PRUNE_KEPT_CHANGES} END`)
      .execute(db);
  }
  await sql.raw('DROP TRIGGER posts_tags_logged_delete').execute(db);
  await sql
    .raw(`CREATE TRIGGER posts_tags_logged_delete AFTER DELETE ON posts
      BEGIN INSERT INTO tag_changes (post_id, what) VALUES (old.id, ${CHANGED.gone}); ${PRUNE_KEPT_CHANGES} END`)
    .execute(db);
}
