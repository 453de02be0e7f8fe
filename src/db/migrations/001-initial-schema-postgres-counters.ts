import { sql, type Kysely } from 'kysely';

/**
 * PostgreSQL: the post totals in `counters` move once per statement. A row trigger would update
 * the same rows for every post, so a statement inserting thousands of posts (the seeder, an
 * import) would pile thousands of versions onto them inside one transaction. Transition tables
 * carry a statement's rows; PostgreSQL allows them only on single-event triggers without a column
 * list, so updates are filtered inside.
 */
export async function postCounters(db: Kysely<any>): Promise<void> {
  await sql
    .raw(`
    CREATE FUNCTION posts_counts_moved(delta text, n bigint, edited bigint) RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      -- delta: rows of (rating, change); n: posts added or removed; edited: rows whose title,
      -- rating or date changed. Counters are updated in name order, as everywhere else.
      IF n <> 0 THEN UPDATE counters SET value = value + n WHERE name = 'posts'; END IF;
      UPDATE counters c SET value = c.value + d.change
        FROM json_to_recordset(delta::json) AS d(rating text, change bigint)
        WHERE c.name = 'posts:' || d.rating AND d.change <> 0;
      IF n <> 0 OR edited > 0 THEN UPDATE counters SET value = value + 1 WHERE name = 'version'; END IF;
    END $$`)
    .execute(db);
  await sql
    .raw(`
    CREATE FUNCTION posts_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM posts_counts_moved(
        (SELECT coalesce(json_agg(json_build_object('rating', rating, 'change', k)), '[]')::text
           FROM (SELECT content_rating AS rating, count(*) AS k FROM new_rows GROUP BY 1 ORDER BY 1) r),
        (SELECT count(*) FROM new_rows), 0);
      RETURN NULL;
    END $$`)
    .execute(db);
  await sql
    .raw(`
    CREATE FUNCTION posts_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM posts_counts_moved(
        (SELECT coalesce(json_agg(json_build_object('rating', rating, 'change', -k)), '[]')::text
           FROM (SELECT content_rating AS rating, count(*) AS k FROM old_rows GROUP BY 1 ORDER BY 1) r),
        -(SELECT count(*) FROM old_rows), 0);
      RETURN NULL;
    END $$`)
    .execute(db);
  await sql
    .raw(`
    CREATE FUNCTION posts_updated() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE edited bigint;
    BEGIN
      -- Likes, comments and favourites update their counts on posts and nothing else: those
      -- leave the data version alone. Any other update of a post is an edit and moves it (an
      -- edit within the same millisecond as the last one changes no column value, so values
      -- cannot tell).
      SELECT count(*) INTO edited FROM old_rows o JOIN new_rows n ON n.id = o.id
        WHERE (n.like_count, n.comment_count, n.favorite_count) IS NOT DISTINCT FROM (o.like_count, o.comment_count, o.favorite_count);
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
  await sql
    .raw('CREATE TRIGGER posts_counted_insert AFTER INSERT ON posts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION posts_inserted()')
    .execute(db);
  await sql
    .raw('CREATE TRIGGER posts_counted_delete AFTER DELETE ON posts REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION posts_deleted()')
    .execute(db);
  await sql
    .raw(
      'CREATE TRIGGER posts_counted_update AFTER UPDATE ON posts REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION posts_updated()',
    )
    .execute(db);
}
