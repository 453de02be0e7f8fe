import { sql } from 'kysely';
import { titleWordRows } from '../../db/queries/title-search.ts';
import { CHANGED } from '../../db/schema/tag-changes.ts';
import { keyReaders, PostSets, type SetSource, type TagSetOptions } from './tag-sets.ts';

/**
 * Memory the title words' posts of one process may take: at a million posts, the 385 distinct
 * words of the generated titles (3.8 million links) take 4.1 MB (6 bitmaps and 379 id lists).
 */
export const WORD_SET_BUDGET = 6 * 1024 * 1024;
/** On a larger board, this many bytes a post when that is more (the same 6 MB at a million). */
export const WORD_BUDGET_PER_POST = 6;

/**
 * The title words (db/schema/title-words.ts), each known by its id in title_vocab. A post's words are
 * split from its title by the same SQL the triggers use, so they are the ones title_words holds.
 * Title edits and deletes are in the change log (tag_changes). A word's row in
 * title_vocab goes when its last post does (those posts were logged, so nothing kept under its
 * id stays current), and a word that comes back later gets an id of its own.
 */
const WORD_SOURCE: SetSource = {
  keys: async (db, dir, limit) =>
    (
      await sql<{ id: number; count: number }>`SELECT id, posts AS count FROM title_vocab WHERE posts > 0
    ORDER BY posts ${sql.raw(dir)}, id ${sql.raw(dir)} LIMIT ${Math.ceil(limit)}`.execute(db)
    ).rows,
  ...keyReaders((key) => sql`SELECT post_id FROM title_words WHERE word = (SELECT word FROM title_vocab WHERE id = ${key})`),
  links: async (db, which) =>
    (
      await sql<{ post_id: number; key: number }>`SELECT p.id AS post_id, v.id AS key
    FROM posts p, ${titleWordRows(db, 'p.title')} JOIN title_vocab v ON v.word = w.value WHERE ${which(sql.ref('p.id'))}`.execute(db)
    ).rows,
  changes: CHANGED.title | CHANGED.gone,
};

/** The posts of each title word, newest first, kept per process like the tag sets (PostSets). */
export class WordSets extends PostSets {
  constructor(o: TagSetOptions = {}) {
    super(WORD_SOURCE, o.budget === undefined ? { budget: WORD_SET_BUDGET, budgetPerPost: WORD_BUDGET_PER_POST, ...o } : o);
  }
}
