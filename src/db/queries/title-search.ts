import { sql } from 'kysely';
import { preparedOnDatabase } from '../prepared.ts';
import type { Database } from '../engine.ts';
import { escapeLike, ftsPhrase } from '../dialect.ts';
import { postgresWordsOf, sqliteWordsOf } from '../schema/title-words.ts';

// Title search reads different indexes on each engine: SQLite's FTS5 trigram tables, PostgreSQL's
// pg_trgm indexes. What src/modules/posts/term-search.ts needs of them, one function each.

/**
 * Whether one search term can be answered from the title indexes without scanning titles: SQLite's
 * FTS5 trigram index needs 3 or more characters (shorter terms go to the general query, which
 * scans); PostgreSQL's windows of newest ids serve any term.
 */
export function titleIndexesServe(db: Database, text: string): boolean {
  return db.engine !== 'sqlite' || [...text].length >= 3;
}

/**
 * Whether the title words that contain `text` can be looked up (title_vocab's trigram index):
 * always on SQLite; on PostgreSQL for 3 or more characters (pg_trgm finds nothing shorter).
 */
export function titleWordsServe(db: Database, text: string): boolean {
  return db.engine === 'sqlite' || [...text].length >= 3;
}

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

/**
 * Ids of the newest `count` posts whose title contains `text`, newest first, from the trigram
 * index of every title. SQLite: its FTS5 index. PostgreSQL: windows of the newest ids (the first
 * `firstWindow` ids below `newestId`, each next one eight times wider): the trigram index and the
 * id range are ANDed as bitmaps, so only the window's candidates are read; a window that holds too
 * few widens until it covers every post. `id + 0` keeps the planner off the key walk.
 */
export async function newestTitlesContaining(db: Database, text: string, count: number, newestId: number, firstWindow: number): Promise<number[]> {
  if (db.engine === 'sqlite') {
    // One text of ids, not a row a match: handing over rows one by one costs several times more.
    const [row] = (
      await sql<{
        ids: string | null;
      }>`SELECT group_concat(id) AS ids FROM (SELECT rowid AS id FROM posts_fts WHERE posts_fts MATCH ${ftsPhrase(text)} ORDER BY rowid DESC LIMIT ${count})`.execute(
        db,
      )
    ).rows;
    return (row?.ids ? row.ids.split(',').map(Number) : []).sort((x, y) => y - x);
  }
  for (let span = firstWindow; ; span *= 8) {
    const matching = db
      .selectFrom('posts')
      .select('id')
      .where(db.containsInsensitive(sql.ref('title'), text));
    const bound = newestId - span;
    const rows = await (bound > 0 ? matching.where('id', '>', bound) : matching).orderBy(sql`id + 0`, 'desc').limit(count).execute();
    if (rows.length >= count || bound <= 0) return rows.map((r) => r.id);
  }
}

/** A title's words as rows of `w.value` (for a FROM clause), split as the engine's triggers split them. */
export function titleWordRows(db: Database, title: string) {
  return sql.raw(db.engine === 'sqlite' ? `${sqliteWordsOf(title)} w` : `${postgresWordsOf(title)} AS w(value)`);
}
