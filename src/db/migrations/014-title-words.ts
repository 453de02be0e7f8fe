import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

/**
 * SQLite: the words of each title, for the most common search (one word, newest first).
 *
 * A search term has no spaces, so it is a substring of a title exactly when it is a substring of
 * one of the title's space-separated words. title_words holds (word, post) for every word of every
 * title (ASCII letters lowered, as the search lowers its terms); title_vocab holds each distinct
 * word once with the number of posts it is in, and title_vocab_fts indexes those few words by
 * trigram. A term's posts are then the posts of the words that contain it: a trigram lookup among
 * a few hundred words and an index walk per word, newest first, as far as the page (~27 us for a
 * page at a million posts, against ~65-95 us for the same trigram phrase over every title).
 *
 * Words are split with json_each over the title made into a JSON array (backslashes and quotes
 * escaped; SQLite's reader takes other control characters as they are). Triggers keep all three
 * in step with posts in the same transaction. PostgreSQL has its own trigram index on titles.
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  if (dialect !== 'sqlite') return;
  await sql.raw('CREATE TABLE title_words (word TEXT NOT NULL, post_id INTEGER NOT NULL, PRIMARY KEY (word, post_id)) WITHOUT ROWID').execute(db);
  await sql.raw('CREATE TABLE title_vocab (id INTEGER PRIMARY KEY, word TEXT NOT NULL UNIQUE, posts INTEGER NOT NULL)').execute(db);
  await sql.raw(`CREATE VIRTUAL TABLE title_vocab_fts USING fts5(word, content='title_vocab', content_rowid='id', tokenize='trigram case_sensitive 0')`).execute(db);
  await fillTitleWords(db);
}

const add = `INSERT OR IGNORE INTO title_words (word, post_id) SELECT value, new.id FROM ${wordsOf('new.title')} WHERE value <> '';`;
const remove = `DELETE FROM title_words WHERE post_id = old.id AND word IN (SELECT value FROM ${wordsOf('old.title')});`;

/** The triggers that keep the three tables in step with the posts, by name. */
const TRIGGERS: Record<string, string> = {
  posts_title_words_insert: `AFTER INSERT ON posts BEGIN ${add} END`,
  posts_title_words_delete: `AFTER DELETE ON posts BEGIN ${remove} END`,
  posts_title_words_update: `AFTER UPDATE OF title ON posts WHEN old.title IS NOT new.title BEGIN ${remove} ${add} END`,
  title_words_counted_insert: `AFTER INSERT ON title_words BEGIN
    INSERT INTO title_vocab (word, posts) VALUES (new.word, 1) ON CONFLICT (word) DO UPDATE SET posts = posts + 1; END`,
  title_words_counted_delete: `AFTER DELETE ON title_words BEGIN
    UPDATE title_vocab SET posts = posts - 1 WHERE word = old.word;
    DELETE FROM title_vocab WHERE word = old.word AND posts <= 0; END`,
  title_vocab_indexed_insert: `AFTER INSERT ON title_vocab BEGIN INSERT INTO title_vocab_fts (rowid, word) VALUES (new.id, new.word); END`,
  title_vocab_indexed_delete: `AFTER DELETE ON title_vocab BEGIN INSERT INTO title_vocab_fts (title_vocab_fts, rowid, word) VALUES ('delete', old.id, old.word); END`,
};

/** For a bulk load (the benchmark's dataset): no word is written post by post; fillTitleWords afterwards. */
export async function dropTitleWordTriggers(db: Kysely<any>): Promise<void> {
  for (const name of Object.keys(TRIGGERS)) await sql.raw(`DROP TRIGGER IF EXISTS ${name}`).execute(db);
}

/**
 * Writes the words of every post's title (the tables must be empty), in key order (a sort, then
 * appends) and counted per word at once, then creates the triggers that keep them from then on.
 */
export async function fillTitleWords(db: Kysely<any>): Promise<void> {
  const run = (text: string) => sql.raw(text).execute(db);
  await run(`INSERT INTO title_words (word, post_id) SELECT DISTINCT w.value, posts.id FROM posts, ${wordsOf('posts.title')} w WHERE w.value <> '' ORDER BY 1, 2`);
  await run('INSERT INTO title_vocab (word, posts) SELECT word, count(*) FROM title_words GROUP BY word');
  await run(`INSERT INTO title_vocab_fts (title_vocab_fts) VALUES ('rebuild')`);
  for (const [name, body] of Object.entries(TRIGGERS)) await run(`CREATE TRIGGER ${name} ${body}`);
}

/** json_each over a title's space-separated words, ASCII letters lowered (empty words come out as ''). */
export function wordsOf(title: string): string {
  const escaped = `replace(replace(lower(${title}), '\\', '\\\\'), '"', '\\"')`;
  return `json_each('["' || replace(${escaped}, ' ', '","') || '"]')`;
}
