import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';
import { loggedUpdate } from './012-tag-change-log.ts';

/**
 * PostgreSQL: the words of each title, as SQLite has had them since migration 014, for the most
 * common search (one word of 3+ characters, newest first). title_words holds (word, post) for
 * every space-separated word of every title, lowered; title_vocab each distinct word once with
 * the number of posts it is in, found by the pg_trgm index on the words (when the extension is
 * there). A term's posts are then those of the few words that contain it, each read newest first
 * from title_words as far as the page, instead of trigram windows over every title (several ms
 * a search at a million posts).
 *
 * Triggers keep both tables in step with posts in the same transaction: statement triggers with
 * transition tables for inserts and deletes (one statement for a whole batch of posts), a row
 * trigger for title edits (so updates of other columns, such as every like's count, call
 * nothing). Counts are changed in word order, so concurrent writers sharing words take their
 * row locks in one order. Title edits go into the change log too (as on SQLite since migration
 * 015), so a process keeping the words' posts in memory (title-word-sets.ts) catches up with them.
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  if (dialect !== 'postgres') return;
  const run = (text: string) => sql.raw(text).execute(db);
  await run('CREATE TABLE title_words (word text NOT NULL, post_id integer NOT NULL, PRIMARY KEY (word, post_id))');
  await run('CREATE TABLE title_vocab (id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY, word text NOT NULL UNIQUE, posts integer NOT NULL)');
  const trgm = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_opclass WHERE opcname = 'gin_trgm_ops'`.execute(db);
  if (trgm.rows[0]?.n) await run('CREATE INDEX title_vocab_trgm ON title_vocab USING gin (word public.gin_trgm_ops)');
  await run(`INSERT INTO title_words (word, post_id) SELECT DISTINCT w, p.id FROM posts p, ${wordsOf('p.title')} w WHERE w <> '' ORDER BY 1, 2`);
  await run('INSERT INTO title_vocab (word, posts) SELECT word, count(*) FROM title_words GROUP BY word ORDER BY word');

  const add = (rows: string) => `INSERT INTO title_words (word, post_id) SELECT DISTINCT w, r.id FROM ${rows} r, ${wordsOf('r.title')} w WHERE w <> '' ORDER BY 1, 2;`;
  const remove = (rows: string) => `DELETE FROM title_words t USING (SELECT DISTINCT w, r.id FROM ${rows} r, ${wordsOf('r.title')} w) x WHERE t.word = x.w AND t.post_id = x.id;`;
  const triggers: [name: string, event: string, body: string][] = [
    ['posts_title_words_insert', 'INSERT ON posts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT', add('new_rows')],
    ['posts_title_words_delete', 'DELETE ON posts REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT', remove('old_rows')],
    ['posts_title_words_update', 'UPDATE OF title ON posts FOR EACH ROW WHEN (OLD.title IS DISTINCT FROM NEW.title)',
      `${remove('(SELECT OLD.id, OLD.title)')} ${add('(SELECT NEW.id, NEW.title)')}`],
    ['title_words_counted_insert', 'INSERT ON title_words REFERENCING NEW TABLE AS new_words FOR EACH STATEMENT', `
      INSERT INTO title_vocab (word, posts) SELECT word, count(*) FROM new_words GROUP BY word ORDER BY word
        ON CONFLICT (word) DO UPDATE SET posts = title_vocab.posts + EXCLUDED.posts;`],
    ['title_words_counted_delete', 'DELETE ON title_words REFERENCING OLD TABLE AS old_words FOR EACH STATEMENT', `
      PERFORM 1 FROM title_vocab WHERE word IN (SELECT word FROM old_words) ORDER BY word FOR UPDATE;
      UPDATE title_vocab v SET posts = v.posts - d.n FROM (SELECT word, count(*) AS n FROM old_words GROUP BY word) d WHERE v.word = d.word;
      DELETE FROM title_vocab WHERE posts <= 0 AND word IN (SELECT word FROM old_words);`],
  ];
  for (const [name, event, body] of triggers) {
    await run(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN ${body} RETURN NULL; END $$`);
    await run(`CREATE TRIGGER ${name} AFTER ${event} EXECUTE FUNCTION ${name}()`);
  }
  await run(`CREATE OR REPLACE ${loggedUpdate('n.tag_string IS DISTINCT FROM o.tag_string OR n.title IS DISTINCT FROM o.title')}`);
}

/** A title's space-separated words, lowered (empty words come out as ''), as a set-returning FROM item. */
export function wordsOf(title: string): string {
  return `unnest(string_to_array(lower(${title}), ' '))`;
}
