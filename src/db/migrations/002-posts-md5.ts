import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

/**
 * posts.md5: the MD5 of the uploaded bytes (32 lowercase hex characters), for searches by md5
 * (`md5:HEX`, the hash other boards and tools give). SHA-256 stays the file's identity and the
 * unique key; md5 is for lookups only, so its index is not unique. Null until filled: uploads
 * write it, and posts made before this migration are filled after start-up from their stored
 * files (modules/uploads/md5-fill.ts).
 *
 * No CHECK on the text: adding a nullable column without one changes no row and is instant on
 * both engines, at a million posts as at ten. The index is on (md5, id) so the fill can walk the
 * posts still without one in id order from the index alone (SQLite keeps the id in every index
 * anyway; a PostgreSQL index on md5 alone would find them all and sort them for every batch).
 *
 * On PostgreSQL, the trigger that moves the data version on edits (posts_updated, from
 * 001-initial-schema-postgres-counters.ts) counted every update that left the like, comment and
 * favourite counts alone as an edit, so filling md5 would move the version once per batch and
 * drop every cache keyed to it while a large board is filled. Filling md5 is no edit, as a like is
 * none: on SQLite it never moved the version (its trigger watches the edited columns only).
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  await db.schema.alterTable('posts').addColumn('md5', 'varchar(32)').execute();
  await db.schema.createIndex('posts_md5').on('posts').columns(['md5', 'id']).execute();
  if (dialect === 'postgres') await fillIsNoEdit(db);
}

async function fillIsNoEdit(db: Kysely<any>): Promise<void> {
  await sql
    .raw(`
    CREATE OR REPLACE FUNCTION posts_updated() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE edited bigint;
    BEGIN
      -- Likes, comments and favourites update their counts on posts and nothing else, and the md5
      -- fill sets md5 and nothing else: those leave the data version alone. Any other update of a
      -- post is an edit and moves it (an edit within the same millisecond as the last one changes
      -- no column value, so values cannot tell).
      SELECT count(*) INTO edited FROM old_rows o JOIN new_rows n ON n.id = o.id
        WHERE (n.like_count, n.comment_count, n.favorite_count) IS NOT DISTINCT FROM (o.like_count, o.comment_count, o.favorite_count)
          AND n.md5 IS NOT DISTINCT FROM o.md5;
      IF edited = 0 THEN RETURN NULL; END IF;
      PERFORM posts_counts_moved(
        (SELECT coalesce(json_agg(json_build_object('rating', rating, 'change', k)), '[]')::text
           FROM (SELECT rating, sum(k) AS k FROM (
             SELECT n.content_rating AS rating, 1 AS k FROM old_rows o JOIN new_rows n ON n.id = o.id WHERE n.content_rating <> o.content_rating
             UNION ALL
             SELECT o.content_rating, -1 FROM old_rows o JOIN new_rows n ON n.id = o.id WHERE n.content_rating <> o.content_rating
           ) m GROUP BY 1 ORDER BY 1) r),
        0, edited);
      RETURN NULL;
    END $$`)
    .execute(db);
}
