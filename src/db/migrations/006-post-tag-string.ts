import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

/**
 * posts.tag_string: the post's tag names, sorted by code unit and joined by spaces (see
 * modules/posts/tag-string.ts), filled from post_tags. No trigger watches the column.
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  await db.schema.alterTable('posts').addColumn('tag_string', 'text', (c) => c.notNull().defaultTo('')).execute();
  await fillTagStrings(db, dialect);
}

/** Rewrites every post's tag_string from post_tags. */
export async function fillTagStrings(db: Kysely<any>, dialect: DialectName): Promise<void> {
  if (dialect === 'sqlite') {
    // SQLite's BINARY collation compares UTF-8 bytes: code-point order.
    await sql`UPDATE posts SET tag_string = coalesce((
      SELECT group_concat(t.name, ' ' ORDER BY t.name)
      FROM post_tags pt JOIN tags t ON t.id = pt.tag_id WHERE pt.post_id = posts.id), '')`.execute(db);
  } else {
    await sql`UPDATE posts p SET tag_string = s.names FROM (
      SELECT pt.post_id, string_agg(t.name, ' ' ORDER BY t.name COLLATE "C") AS names
      FROM post_tags pt JOIN tags t ON t.id = pt.tag_id GROUP BY pt.post_id) s
      WHERE s.post_id = p.id`.execute(db);
  }
}
