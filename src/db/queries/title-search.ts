import { sql } from 'kysely';
import { preparedOnDatabase } from '../prepared.ts';
import type { Database } from '../engine.ts';
import { escapeLike, ftsPhrase } from '../dialect.ts';
import { postgresWordsOf, sqliteWordsOf } from '../schema/title-words.ts';

// Title words are found by different indexes on each engine: SQLite's FTS5 trigram table of
// them, PostgreSQL's pg_trgm index. What src/modules/posts/title-terms.ts needs of them.

/**
 * The title words containing `text`, at most `limit`, as a JSON array of [word, posts, id]
 * (null when none): an FTS5 phrase for SQLite's trigram index of the words, an ILIKE pattern for
 * PostgreSQL's.
 */
export async function titleWordsContaining(db: Database, text: string, limit: number): Promise<string | null> {
  const match = db.engine === 'sqlite' ? ftsPhrase(text) : `%${escapeLike(text.toLowerCase())}%`;
  const [found] = await wordsContaining(db, { match, limit });
  return found?.words ?? null;
}

const wordsContaining = preparedOnDatabase((db, p: { match: string; limit: number }) =>
  db.engine === 'sqlite'
    ? sql<{ words: string | null }>`SELECT json_group_array(json_array(word, posts, id)) AS words FROM (
      SELECT word, posts, id FROM title_vocab WHERE id IN (SELECT rowid FROM title_vocab_fts WHERE title_vocab_fts MATCH ${p.match}) LIMIT ${p.limit})`
    : sql<{ words: string | null }>`SELECT json_agg(json_build_array(word, posts, id))::text AS words FROM (
      SELECT word, posts, id FROM title_vocab WHERE word ILIKE ${p.match} ESCAPE '\\' LIMIT ${p.limit}) v`,
);

/** A title's words as rows of `w.value` (for a FROM clause), split as the engine's triggers split them. */
export function titleWordRows(db: Database, title: string) {
  return sql.raw(db.engine === 'sqlite' ? `${sqliteWordsOf(title)} w` : `${postgresWordsOf(title)} AS w(value)`);
}
