import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

/**
 * PostgreSQL: the writes readers catch up from in order (new posts by id, the change log
 * tag_changes by seq, the data version) are put in commit order by an advisory lock held to the
 * transaction's end, `commit_order_lock()`, instead of by the `counters` row 'version', which the
 * triggers moved only after the insert had drawn the post's id: two uploads could draw 100 and
 * 101, and 101 commit first, so a reader that saw it read "ids above 101" and never met 100.
 *
 * The lock is taken before a write draws a number readers follow: a post insert in a statement
 * trigger BEFORE it (so before its ids are drawn), an edit or a delete in the first trigger after
 * it (posts_counts_moved, of posts_counted_*, which fire before the log's triggers: name order),
 * and bumpVersion (db/counters.ts) before it moves the version. Writers that draw such numbers
 * thus commit in the order they drew them. The key is the schema's name hashed, so boards (or
 * test runs) in other schemas of one database do not wait for each other.
 *
 * Likes, comments and favourites move neither (their own counter 'counts', migration 004) and
 * never take it. SQLite runs one writing transaction at a time: commit order is write order.
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  if (dialect === 'sqlite') return; // one writer at a time: commit order is write order
  const run = (text: string) => sql.raw(text).execute(db);
  await run(`CREATE FUNCTION commit_order_lock() RETURNS void LANGUAGE plpgsql AS $$
    BEGIN PERFORM pg_advisory_xact_lock(hashtextextended(current_schema(), 7304213)); END $$`);
  await run(`CREATE FUNCTION posts_commit_order() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM commit_order_lock(); RETURN NULL; END $$`);
  await run('CREATE TRIGGER posts_commit_order BEFORE INSERT ON posts FOR EACH STATEMENT EXECUTE FUNCTION posts_commit_order()');
  // Migration 001's function, with the lock first.
  await run(`CREATE OR REPLACE FUNCTION posts_counts_moved(delta text, n bigint, edited bigint) RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      IF n = 0 AND edited = 0 THEN RETURN; END IF;
      PERFORM commit_order_lock();
      IF n <> 0 THEN UPDATE counters SET value = value + n WHERE name = 'posts'; END IF;
      UPDATE counters c SET value = c.value + d.change
        FROM json_to_recordset(delta::json) AS d(rating text, change bigint)
        WHERE c.name = 'posts:' || d.rating AND d.change <> 0;
      UPDATE counters SET value = value + 1 WHERE name = 'version';
    END $$`);
}
