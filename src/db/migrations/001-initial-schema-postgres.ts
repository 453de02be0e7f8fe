import { sql, type Kysely } from 'kysely';
import { installItemTriggers } from '../schema/list-item.ts';
import { PRUNE_CHANGES } from '../schema/tag-changes.ts';
import { postgresWordsOf as wordsOf } from '../schema/title-words.ts';
import { postCounters } from './001-initial-schema-postgres-counters.ts';

/**
 * PostgreSQL's part of the first schema. Triggers that write shared rows (counters, posts per like
 * count, title word counts) are statement triggers with transition tables: a row trigger would
 * pile versions of the same few rows onto one bulk insert. Each applies its changes in key order,
 * so concurrent writers lock the rows they share in one order. Triggers fire in name order.
 */
export async function postgresSchema(db: Kysely<any>): Promise<void> {
  await titleTrigrams(db);
  await postCounters(db);
  await installItemTriggers(db, 'postgres');
  await changeLog(db);
  await postsByLikes(db);
  await titleWords(db);
}

/**
 * Title search: a pg_trgm GIN index answers "title contains" without reading every title. pg_trgm
 * lives in public so that every schema (one per test run) can use it; without it search still
 * works, unindexed.
 */
async function titleTrigrams(db: Kysely<any>): Promise<void> {
  await sql.raw('SAVEPOINT trgm').execute(db);
  try {
    await sql.raw(`CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public`).execute(db);
    await sql.raw('RELEASE SAVEPOINT trgm').execute(db);
  } catch {
    // Another run created it at the same moment, or this role may not create extensions.
    await sql.raw('ROLLBACK TO SAVEPOINT trgm').execute(db);
  }
  if (await hasTrigrams(db)) await sql.raw(`CREATE INDEX posts_title_trgm ON posts USING gin (title public.gin_trgm_ops)`).execute(db);
}

async function hasTrigrams(db: Kysely<any>): Promise<boolean> {
  const has = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_opclass WHERE opcname = 'gin_trgm_ops'`.execute(db);
  return Boolean(has.rows[0]?.n);
}

/**
 * tag_changes: the posts whose tags or title changed, or that were deleted, in commit order, so a
 * process keeping tag and title-word data in memory (tag-sets.ts, title-word-sets.ts) catches up
 * with them instead of reading everything again. New posts are not logged: they are the ids above
 * the highest one a reader has seen.
 *
 * The entries are written by statement triggers that fire after the ones that move the data
 * version (posts_counted_*: triggers fire in name order), so each writer numbers its entries while
 * it holds the lock on the version row: numbers are handed out in commit order and a reader never
 * sees a later entry before an earlier one commits.
 */
async function changeLog(db: Kysely<any>): Promise<void> {
  const prune = PRUNE_CHANGES;
  const changed = 'n.tag_string IS DISTINCT FROM o.tag_string OR n.title IS DISTINCT FROM o.title';
  await sql.raw('CREATE TABLE tag_changes (seq integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY, post_id integer NOT NULL)').execute(db);
  await sql
    .raw(`CREATE FUNCTION posts_tags_logged_update() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO tag_changes (post_id) SELECT n.id FROM old_rows o JOIN new_rows n ON n.id = o.id
        WHERE ${changed} ORDER BY n.id;
      IF FOUND THEN ${prune} END IF;
      RETURN NULL;
    END $$`)
    .execute(db);
  await sql
    .raw(`
    CREATE FUNCTION posts_tags_logged_delete() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO tag_changes (post_id) SELECT id FROM old_rows ORDER BY id;
      IF FOUND THEN ${prune} END IF;
      RETURN NULL;
    END $$`)
    .execute(db);
  await sql
    .raw(`CREATE TRIGGER posts_tags_logged_update AFTER UPDATE ON posts REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION posts_tags_logged_update()`)
    .execute(db);
  await sql
    .raw(`CREATE TRIGGER posts_tags_logged_delete AFTER DELETE ON posts REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION posts_tags_logged_delete()`)
    .execute(db);
}

/**
 * posts_by_likes: how many posts of each rating have each like count, so "posts of a rating with
 * at least N likes" is an exact sum over a few hundred rows instead of a count over the index.
 */
async function postsByLikes(db: Kysely<any>): Promise<void> {
  await sql
    .raw(`CREATE TABLE posts_by_likes (content_rating text NOT NULL, like_count integer NOT NULL, posts bigint NOT NULL,
    PRIMARY KEY (content_rating, like_count))`)
    .execute(db);
  // changes: rows of (content_rating, like_count, k), summed per pair and applied in order.
  const apply = (changes: string) => `
    INSERT INTO posts_by_likes (content_rating, like_count, posts)
      SELECT content_rating, like_count, sum(k) FROM (${changes}) c GROUP BY 1, 2 HAVING sum(k) <> 0 ORDER BY 1, 2
    ON CONFLICT (content_rating, like_count) DO UPDATE SET posts = posts_by_likes.posts + excluded.posts;`;
  const fn = (name: string, changes: string) =>
    sql
      .raw(`
    CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN ${apply(changes)} RETURN NULL; END $$`)
      .execute(db);
  await fn('posts_liked_insert', 'SELECT content_rating, like_count, 1 AS k FROM new_rows');
  await fn('posts_liked_delete', 'SELECT content_rating, like_count, -1 AS k FROM old_rows');
  await fn(
    'posts_liked_update',
    `
    SELECT n.content_rating, n.like_count, 1 AS k FROM old_rows o JOIN new_rows n ON n.id = o.id
      WHERE (n.content_rating, n.like_count) IS DISTINCT FROM (o.content_rating, o.like_count)
    UNION ALL
    SELECT o.content_rating, o.like_count, -1 FROM old_rows o JOIN new_rows n ON n.id = o.id
      WHERE (n.content_rating, n.like_count) IS DISTINCT FROM (o.content_rating, o.like_count)`,
  );
  await sql
    .raw('CREATE TRIGGER posts_liked_insert AFTER INSERT ON posts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION posts_liked_insert()')
    .execute(db);
  await sql
    .raw('CREATE TRIGGER posts_liked_delete AFTER DELETE ON posts REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION posts_liked_delete()')
    .execute(db);
  await sql
    .raw(
      'CREATE TRIGGER posts_liked_update AFTER UPDATE ON posts REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION posts_liked_update()',
    )
    .execute(db);
}

/**
 * The words of each title, for the most common search (one word of 3+ characters, newest first).
 * title_words holds (word, post) for every space-separated word of every title, lowered;
 * title_vocab each distinct word once with the number of posts it is in, found by the pg_trgm
 * index on the words (when the extension is there). A term's posts are those of the few words
 * that contain it, each read newest first from title_words as far as the page, instead of
 * trigram windows over every title.
 *
 * Statement triggers with transition tables for inserts and deletes (one statement for a whole
 * batch of posts), a row trigger for title edits (so updates of other columns, such as every
 * like's count, call nothing). Counts are changed in word order.
 */
async function titleWords(db: Kysely<any>): Promise<void> {
  const run = (text: string) => sql.raw(text).execute(db);
  await run('CREATE TABLE title_words (word text NOT NULL, post_id integer NOT NULL, PRIMARY KEY (word, post_id))');
  await run('CREATE TABLE title_vocab (id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY, word text NOT NULL UNIQUE, posts integer NOT NULL)');
  if (await hasTrigrams(db)) await run('CREATE INDEX title_vocab_trgm ON title_vocab USING gin (word public.gin_trgm_ops)');
  const add = (rows: string) =>
    `INSERT INTO title_words (word, post_id) SELECT DISTINCT w, r.id FROM ${rows} r, ${wordsOf('r.title')} w WHERE w <> '' ORDER BY 1, 2;`;
  const remove = (rows: string) =>
    `DELETE FROM title_words t USING (SELECT DISTINCT w, r.id FROM ${rows} r, ${wordsOf('r.title')} w) x WHERE t.word = x.w AND t.post_id = x.id;`;
  const triggers: [name: string, event: string, body: string][] = [
    ['posts_title_words_insert', 'INSERT ON posts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT', add('new_rows')],
    ['posts_title_words_delete', 'DELETE ON posts REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT', remove('old_rows')],
    [
      'posts_title_words_update',
      'UPDATE OF title ON posts FOR EACH ROW WHEN (OLD.title IS DISTINCT FROM NEW.title)',
      `${remove('(SELECT OLD.id, OLD.title)')} ${add('(SELECT NEW.id, NEW.title)')}`,
    ],
    [
      'title_words_counted_insert',
      'INSERT ON title_words REFERENCING NEW TABLE AS new_words FOR EACH STATEMENT',
      `
      INSERT INTO title_vocab (word, posts) SELECT word, count(*) FROM new_words GROUP BY word ORDER BY word
        ON CONFLICT (word) DO UPDATE SET posts = title_vocab.posts + EXCLUDED.posts;`,
    ],
    [
      'title_words_counted_delete',
      'DELETE ON title_words REFERENCING OLD TABLE AS old_words FOR EACH STATEMENT',
      `
      PERFORM 1 FROM title_vocab WHERE word IN (SELECT word FROM old_words) ORDER BY word FOR UPDATE;
      UPDATE title_vocab v SET posts = v.posts - d.n FROM (SELECT word, count(*) AS n FROM old_words GROUP BY word) d WHERE v.word = d.word;
      DELETE FROM title_vocab WHERE posts <= 0 AND word IN (SELECT word FROM old_words);`,
    ],
  ];
  for (const [name, event, body] of triggers) {
    await run(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN ${body} RETURN NULL; END $$`);
    await run(`CREATE TRIGGER ${name} AFTER ${event} EXECUTE FUNCTION ${name}()`);
  }
}
