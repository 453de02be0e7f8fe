import { sql, type Kysely, type RawBuilder } from 'kysely';
import { isoMillis, jsonQuote, type DialectName } from '../dialect.ts';

/**
 * Each post keeps its list item (PostListItem in modules/posts/posts.schemas.ts, key for key) as JSON text on
 * its row, all but the three counts that likes, comments and favorites move: `item_head` runs
 * from `{` to the image URL, `item_tail` from the rating to `}`. A list row is then the two
 * stored texts around the counts (ITEM_JSON), with no function call, date formatting or join to
 * the uploader per row, which about halves the cost of a page's rows.
 *
 * Triggers write both parts whenever a post is inserted or a column they show changes, on both
 * engines, so every writer (uploads, edits, the seeder, imports) keeps them true. The uploader's
 * name is copied: usernames never change.
 */

/** The columns the stored parts show: a change to any of them rewrites the parts. */
const SHOWN = ['uploader_id', 'title', 'thumb_path', 'file_path', 'content_rating', 'media_type', 'width', 'height', 'tag_string', 'created_at'];

/** The stored parts, computed from a post row (`row`: the alias its columns are read through). */
function parts(dialect: DialectName, row: string): { head: RawBuilder<string>; tail: RawBuilder<string> } {
  const col = (name: string) => sql.raw<string>(`${row}.${name}`);
  const q = (text: RawBuilder<string>) => jsonQuote(dialect, text);
  const media = (name: string) => q(sql<string>`'/media/' || ${col(name)}`);
  const username = sql<string>`(SELECT users.username FROM users WHERE users.id = ${col('uploader_id')})`;
  // Tag names hold no whitespace, and escaping never makes a space: the spaces left are the separators.
  const tags = sql`CASE WHEN ${col('tag_string')} = '' THEN '[]' ELSE '[' || replace(${q(col('tag_string'))}, ' ', '","') || ']' END`;
  return {
    head: sql<string>`'{"id":"' || ${col('id')} || '","title":' || ${q(col('title'))} || ',"thumbnail":' || ${media('thumb_path')}
      || ',"imageUrl":' || ${media('file_path')}`,
    tail: sql<string>`',"contentRating":' || ${q(col('content_rating'))} || ',"mediaType":' || ${q(col('media_type'))}
      || ',"width":' || ${col('width')} || ',"height":' || ${col('height')} || ',"author":{"username":' || ${q(username)} || '},"tags":' || ${tags}
      || ',"createdAt":"' || ${isoMillis(dialect, sql.raw<number>(`${row}.created_at`))} || '"}'`,
  };
}

/**
 * A post's list item as JSON text: the stored parts around the counts. The counts are joined
 * first (`||` copies its left side each time: the ~400-byte head once instead of six times).
 */
export const ITEM_JSON = sql<string>`posts.item_head || (',"likes":' || posts.like_count || ',"comments":' || posts.comment_count
  || ',"favorites":' || posts.favorite_count) || posts.item_tail`;

/** SQL text of an expression that has no parameters (trigger bodies cannot take any). */
function text(db: Kysely<any>, expr: RawBuilder<unknown>): string {
  const compiled = expr.compile(db);
  if (compiled.parameters.length > 0) throw new Error('a stored item expression must not take parameters');
  return compiled.sql;
}

/** Creates the triggers that write each post's stored parts. */
export async function installItemTriggers(db: Kysely<any>, dialect: DialectName): Promise<void> {
  if (dialect === 'sqlite') {
    // SQLite cannot assign to NEW: the row is updated after it is written. The update sets only
    // the parts, so no trigger watching other columns (counters, title search) fires again.
    const { head, tail } = parts(dialect, 'posts');
    const write = `UPDATE posts SET item_head = ${text(db, head)}, item_tail = ${text(db, tail)} WHERE id = new.id;`;
    await sql.raw(`CREATE TRIGGER posts_item_insert AFTER INSERT ON posts BEGIN ${write} END`).execute(db);
    await sql.raw(`CREATE TRIGGER posts_item_update AFTER UPDATE OF ${SHOWN.join(', ')} ON posts BEGIN ${write} END`).execute(db);
    return;
  }
  const { head, tail } = parts(dialect, 'NEW');
  await sql
    .raw(`
    CREATE FUNCTION posts_item() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      NEW.item_head := ${text(db, head)};
      NEW.item_tail := ${text(db, tail)};
      RETURN NEW;
    END $$`)
    .execute(db);
  await sql.raw(`CREATE TRIGGER posts_item BEFORE INSERT OR UPDATE OF ${SHOWN.join(', ')} ON posts FOR EACH ROW EXECUTE FUNCTION posts_item()`).execute(db);
}

/** Writes every post's stored parts (a database made before they existed). */
export async function fillItems(db: Kysely<any>, dialect: DialectName): Promise<void> {
  const { head, tail } = parts(dialect, 'posts');
  await sql`UPDATE posts SET item_head = ${head}, item_tail = ${tail}`.execute(db);
}
