import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

/**
 * saved_searches: a member's named queries (modules/saved-searches/), each matched against the
 * posts made after the newest event when it was saved or its query changed (`after_seq`). saved_search_posts: their
 * feed, one row a post that matched any of them when it was made, numbered by the post's event
 * (`seq`, migration 020), so "since I last looked" is the rows above `saved_search_seen.seq`,
 * whatever the post's id (a post published from the approval queue keeps an older id). Written
 * by a round every app runs, which follows the events from the counter 'saved_searches'. A
 * deleted post leaves every feed with its row.
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  await db.schema
    .createTable('saved_searches')
    .addColumn('id', 'integer', (c) => (dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey().generatedByDefaultAsIdentity()))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'varchar(100)', (c) => c.notNull())
    .addColumn('q', 'varchar(1000)', (c) => c.notNull())
    .addColumn('after_seq', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('saved_searches_user').on('saved_searches').columns(['user_id', 'id']).execute();
  await db.schema
    .createTable('saved_search_posts')
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('post_id', 'integer', (c) => c.notNull().references('posts.id').onDelete('cascade'))
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('saved_search_posts_pk', ['user_id', 'post_id'])
    .execute();
  await db.schema.createIndex('saved_search_posts_feed').on('saved_search_posts').columns(['user_id', 'seq']).execute();
  await db.schema.createIndex('saved_search_posts_post').on('saved_search_posts').column('post_id').execute();
  await db.schema
    .createTable('saved_search_seen')
    .addColumn('user_id', 'integer', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .execute();
  await sql`INSERT INTO counters (name, value) VALUES ('saved_searches', 0)`.execute(db);
}
