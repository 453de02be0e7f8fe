import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

/**
 * A post whose rating changes goes into the change log (tag_changes) too, as a tag or title edit
 * does. Each process keeps the posts of each rating in memory for the search (as it keeps each
 * tag's), and catches up from this log instead of reading every post again; a rating edit would
 * otherwise go unseen there.
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  const prune = `DELETE FROM tag_changes WHERE seq <= (SELECT max(seq) FROM tag_changes) - 10000;`;
  if (dialect === 'sqlite') {
    await sql
      .raw(`CREATE TRIGGER posts_rating_logged_update AFTER UPDATE OF content_rating ON posts WHEN old.content_rating IS NOT new.content_rating
      BEGIN INSERT INTO tag_changes (post_id) VALUES (new.id); ${prune} END`)
      .execute(db);
    return;
  }
  // PostgreSQL logs from one statement trigger on every update of posts (001-initial-schema-postgres.ts): its test gains the rating.
  await sql
    .raw(`CREATE OR REPLACE FUNCTION posts_tags_logged_update() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO tag_changes (post_id) SELECT n.id FROM old_rows o JOIN new_rows n ON n.id = o.id
        WHERE n.tag_string IS DISTINCT FROM o.tag_string OR n.title IS DISTINCT FROM o.title OR n.content_rating IS DISTINCT FROM o.content_rating
        ORDER BY n.id;
      IF FOUND THEN ${prune} END IF;
      RETURN NULL;
    END $$`)
    .execute(db);
}
