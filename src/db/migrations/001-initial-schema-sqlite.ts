import { sql, type Kysely } from 'kysely';
import { installItemTriggers } from '../schema/list-item.ts';
import { PRUNE_CHANGES } from '../schema/tag-changes.ts';
import { createTitleWordTriggers } from '../schema/title-words.ts';

/**
 * SQLite's part of the first schema. SQLite has one writer, so row triggers keep everything.
 * Triggers on one table fire in the reverse order of their creation: they are created in the
 * order the development migrations left them in.
 */
export async function sqliteSchema(db: Kysely<any>): Promise<void> {
  const run = (text: string) => sql.raw(text).execute(db);
  const bump = (sign: string, row: string) => `
    UPDATE counters SET value = value ${sign} 1 WHERE name = 'posts';
    UPDATE counters SET value = value ${sign} 1 WHERE name = 'posts:' || ${row}.content_rating;`;
  for (const stmt of [
    `CREATE TRIGGER posts_counted_insert AFTER INSERT ON posts BEGIN ${bump('+', 'new')}
       UPDATE counters SET value = value + 1 WHERE name = 'version'; END`,
    `CREATE TRIGGER posts_counted_delete AFTER DELETE ON posts BEGIN ${bump('-', 'old')}
       UPDATE counters SET value = value + 1 WHERE name = 'version'; END`,
    // Title search: an FTS5 trigram index answers "title contains" without reading every title.
    `CREATE VIRTUAL TABLE posts_fts USING fts5(title, content='posts', content_rowid='id', tokenize='trigram case_sensitive 0')`,
    `CREATE TRIGGER posts_fts_insert AFTER INSERT ON posts BEGIN INSERT INTO posts_fts(rowid, title) VALUES (new.id, new.title); END`,
    `CREATE TRIGGER posts_fts_delete AFTER DELETE ON posts BEGIN INSERT INTO posts_fts(posts_fts, rowid, title) VALUES ('delete', old.id, old.title); END`,
    `CREATE TRIGGER posts_fts_update AFTER UPDATE OF title ON posts BEGIN
       INSERT INTO posts_fts(posts_fts, rowid, title) VALUES ('delete', old.id, old.title);
       INSERT INTO posts_fts(rowid, title) VALUES (new.id, new.title); END`,
    // Only edits (rating, title, updated_at) move the version, not the like and comment counts.
    `CREATE TRIGGER posts_counted_update AFTER UPDATE OF content_rating, title, updated_at ON posts BEGIN
       UPDATE counters SET value = value - 1 WHERE name = 'posts:' || old.content_rating;
       UPDATE counters SET value = value + 1 WHERE name = 'posts:' || new.content_rating;
       UPDATE counters SET value = value + 1 WHERE name = 'version'; END`,
  ]) {
    await run(stmt);
  }
  await installItemTriggers(db, 'sqlite');
  await changeLog(db);
  await postsByLikes(db);
  await titleWords(db);
}

/**
 * tag_changes: the posts whose tags or title changed, or that were deleted, in commit order, so a
 * process keeping tag and title-word data in memory (tag-sets.ts, title-word-sets.ts) catches up
 * with them instead of reading everything again. New posts are not logged: they are the ids above
 * the highest one a reader has seen.
 */
async function changeLog(db: Kysely<any>): Promise<void> {
  const prune = PRUNE_CHANGES;
  await sql.raw('CREATE TABLE tag_changes (seq INTEGER PRIMARY KEY AUTOINCREMENT, post_id INTEGER NOT NULL)').execute(db);
  await sql
    .raw(`CREATE TRIGGER posts_tags_logged_update AFTER UPDATE OF tag_string ON posts WHEN old.tag_string IS NOT new.tag_string
      BEGIN INSERT INTO tag_changes (post_id) VALUES (new.id); ${prune} END`)
    .execute(db);
  await sql
    .raw(`CREATE TRIGGER posts_tags_logged_delete AFTER DELETE ON posts
      BEGIN INSERT INTO tag_changes (post_id) VALUES (old.id); ${prune} END`)
    .execute(db);
}

/**
 * posts_by_likes: how many posts of each rating have each like count, so "posts of a rating with
 * at least N likes" is an exact sum over a few hundred rows instead of a count over the index.
 */
async function postsByLikes(db: Kysely<any>): Promise<void> {
  const bump = (rating: string, likes: string, change: string) =>
    `INSERT INTO posts_by_likes (content_rating, like_count, posts) VALUES (${rating}, ${likes}, ${change})
       ON CONFLICT (content_rating, like_count) DO UPDATE SET posts = posts_by_likes.posts + excluded.posts;`;
  await sql
    .raw(`CREATE TABLE posts_by_likes (content_rating TEXT NOT NULL, like_count INTEGER NOT NULL, posts INTEGER NOT NULL,
      PRIMARY KEY (content_rating, like_count)) WITHOUT ROWID`)
    .execute(db);
  await sql.raw(`CREATE TRIGGER posts_liked_insert AFTER INSERT ON posts BEGIN ${bump('new.content_rating', 'new.like_count', '1')} END`).execute(db);
  await sql.raw(`CREATE TRIGGER posts_liked_delete AFTER DELETE ON posts BEGIN ${bump('old.content_rating', 'old.like_count', '-1')} END`).execute(db);
  await sql
    .raw(`CREATE TRIGGER posts_liked_update AFTER UPDATE OF like_count, content_rating ON posts
      WHEN old.like_count IS NOT new.like_count OR old.content_rating IS NOT new.content_rating
      BEGIN ${bump('old.content_rating', 'old.like_count', '-1')} ${bump('new.content_rating', 'new.like_count', '1')} END`)
    .execute(db);
}

/**
 * The words of each title, for the most common search (one word, newest first). A search term has
 * no spaces, so it is a substring of a title exactly when it is a substring of one of the title's
 * words: title_words holds (word, post) for every word of every title (ASCII letters lowered, as
 * the search lowers its terms), title_vocab each distinct word once with its number of posts, and
 * title_vocab_fts indexes those few words by trigram. A term's posts are those of the words that
 * contain it: a trigram lookup among a few hundred words and an index walk per word, newest first.
 * Title edits go into the change log too.
 */
async function titleWords(db: Kysely<any>): Promise<void> {
  await sql.raw('CREATE TABLE title_words (word TEXT NOT NULL, post_id INTEGER NOT NULL, PRIMARY KEY (word, post_id)) WITHOUT ROWID').execute(db);
  await sql.raw('CREATE TABLE title_vocab (id INTEGER PRIMARY KEY, word TEXT NOT NULL UNIQUE, posts INTEGER NOT NULL)').execute(db);
  await sql
    .raw(`CREATE VIRTUAL TABLE title_vocab_fts USING fts5(word, content='title_vocab', content_rowid='id', tokenize='trigram case_sensitive 0')`)
    .execute(db);
  await createTitleWordTriggers(db);
  await sql
    .raw(`CREATE TRIGGER posts_title_logged_update AFTER UPDATE OF title ON posts WHEN old.title IS NOT new.title
    BEGIN INSERT INTO tag_changes (post_id) VALUES (new.id); ${PRUNE_CHANGES} END`)
    .execute(db);
}
