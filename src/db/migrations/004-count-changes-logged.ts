import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

/**
 * count_changes: the posts whose like, favourite or comment count moved, so a process keeping
 * those counts in memory for the search (likes:>N order:likes) catches up with them instead of
 * reading every post again. These moves leave the data version alone (a like is no edit), so
 * they get a log and a counter of their own, 'counts'.
 *
 * Each logging statement takes the next value of the 'counts' counter and writes it beside the
 * posts it moved. It updates that counter row, which it then holds until its transaction ends,
 * so values are handed out in commit order: a reader that has seen value N has every entry up to
 * N. Several posts of one statement share a value. Entries more than 10,000 values old are
 * dropped; a reader further behind reads every post again.
 *
 * New posts are not logged: a reader reads the ids above the highest it has seen.
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  await db.schema
    .createTable('count_changes')
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .addColumn('post_id', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('count_changes_seq').on('count_changes').column('seq').execute();
  await sql`INSERT INTO counters (name, value) VALUES ('counts', 0)`.execute(db);
  const moved = (o: string, n: string) =>
    `(${n}.like_count, ${n}.favorite_count, ${n}.comment_count) IS DISTINCT FROM (${o}.like_count, ${o}.favorite_count, ${o}.comment_count)`;
  const prune = `DELETE FROM count_changes WHERE seq <= (SELECT value FROM counters WHERE name = 'counts') - 10000;`;
  if (dialect === 'sqlite') {
    await sql
      .raw(`CREATE TRIGGER posts_counts_logged AFTER UPDATE OF like_count, favorite_count, comment_count ON posts
      WHEN ${moved('old', 'new').replace('IS DISTINCT FROM', 'IS NOT')}
      BEGIN
        UPDATE counters SET value = value + 1 WHERE name = 'counts';
        INSERT INTO count_changes (seq, post_id) SELECT value, new.id FROM counters WHERE name = 'counts';
        ${prune}
      END`)
      .execute(db);
    return;
  }
  // PostgreSQL: once per statement, from its transition tables (a row trigger would move the counter for every post).
  await sql
    .raw(`CREATE FUNCTION posts_counts_logged() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE s bigint;
    BEGIN
      IF NOT EXISTS (SELECT 1 FROM old_rows o JOIN new_rows n ON n.id = o.id WHERE ${moved('o', 'n')}) THEN RETURN NULL; END IF;
      UPDATE counters SET value = value + 1 WHERE name = 'counts' RETURNING value INTO s;
      INSERT INTO count_changes (seq, post_id) SELECT s, n.id FROM old_rows o JOIN new_rows n ON n.id = o.id WHERE ${moved('o', 'n')};
      ${prune}
      RETURN NULL;
    END $$`)
    .execute(db);
  await sql
    .raw(`CREATE TRIGGER posts_counts_logged AFTER UPDATE ON posts REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION posts_counts_logged()`)
    .execute(db);
}
