import { sql, type Kysely } from 'kysely';

/**
 * The words of each title (title_words, title_vocab; SQLite also title_vocab_fts), kept by
 * triggers that split titles with the SQL below. The in-memory word sets (title-word-sets.ts)
 * split titles with the same SQL, so they hold the words the tables hold.
 */

/** SQLite: json_each over a title's space-separated words, ASCII letters lowered (empty words come out as ''). */
export function sqliteWordsOf(title: string): string {
  const escaped = `replace(replace(lower(${title}), '\\', '\\\\'), '"', '\\"')`;
  return `json_each('["' || replace(${escaped}, ' ', '","') || '"]')`;
}

/** PostgreSQL: a title's space-separated words, lowered (empty words come out as ''), as a set-returning FROM item. */
export function postgresWordsOf(title: string): string {
  return `unnest(string_to_array(lower(${title}), ' '))`;
}

const add = `INSERT OR IGNORE INTO title_words (word, post_id) SELECT value, new.id FROM ${sqliteWordsOf('new.title')} WHERE value <> '';`;
const remove = `DELETE FROM title_words WHERE post_id = old.id AND word IN (SELECT value FROM ${sqliteWordsOf('old.title')});`;

/** SQLite: the triggers that keep the three tables in step with the posts, by name. */
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

/** SQLite, for a bulk load (the benchmark's dataset): no word is written post by post; fillTitleWords afterwards. */
export async function dropTitleWordTriggers(db: Kysely<any>): Promise<void> {
  for (const name of Object.keys(TRIGGERS)) await sql.raw(`DROP TRIGGER IF EXISTS ${name}`).execute(db);
}

/**
 * SQLite: writes the words of every post's title (the tables must be empty), in key order (a
 * sort, then appends) and counted per word at once, then creates the triggers that keep them
 * from then on.
 */
export async function fillTitleWords(db: Kysely<any>): Promise<void> {
  const run = (text: string) => sql.raw(text).execute(db);
  await run(
    `INSERT INTO title_words (word, post_id) SELECT DISTINCT w.value, posts.id FROM posts, ${sqliteWordsOf('posts.title')} w WHERE w.value <> '' ORDER BY 1, 2`,
  );
  await run('INSERT INTO title_vocab (word, posts) SELECT word, count(*) FROM title_words GROUP BY word');
  await run(`INSERT INTO title_vocab_fts (title_vocab_fts) VALUES ('rebuild')`);
  await createTitleWordTriggers(db);
}

/** SQLite: creates the triggers that keep the words of titles. */
export async function createTitleWordTriggers(db: Kysely<any>): Promise<void> {
  for (const [name, body] of Object.entries(TRIGGERS)) await sql.raw(`CREATE TRIGGER ${name} ${body}`).execute(db);
}
