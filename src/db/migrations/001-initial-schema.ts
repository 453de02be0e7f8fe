import { sql, type ColumnDefinitionBuilder, type CreateTableBuilder, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';
import { postgresSchema } from './001-initial-schema-postgres.ts';
import { sqliteSchema } from './001-initial-schema-sqlite.ts';

type Table = CreateTableBuilder<string, any>;

function withId(t: Table, dialect: DialectName): Table {
  return t.addColumn('id', 'integer', (c: ColumnDefinitionBuilder) =>
    dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey().generatedByDefaultAsIdentity(),
  );
}

const cascade = (table: string) => (c: ColumnDefinitionBuilder) => c.notNull().references(`${table}.id`).onDelete('cascade');

/**
 * The schema as the first release ships it: the tables both engines share, written with Kysely's
 * builder, then what each engine keeps by triggers (counters, title search, stored list items,
 * the change log, posts per like count, title words) in the engine's own file.
 *
 * A shipped migration is never edited (migrations.test.ts holds each file to a checksum): a change
 * is a new migration. The pieces this one takes from src/db/schema/ are shared with the running
 * code; changing what they produce also takes a new migration, which applies it to existing databases.
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  await sharedTables(db, dialect);
  // Failed sign-ins per account name, so repeated guessing is slowed down on every instance.
  await db.schema
    .createTable('login_failures')
    .addColumn('username_lower', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('last_failed_at', 'bigint', (c) => c.notNull())
    .addColumn('blocked_until', 'bigint', (c) => c.notNull())
    .execute();
  // Totals kept exact by triggers in the same transaction as each post change (`posts`,
  // `posts:<rating>`), and `version`, moved when a post is added, deleted or edited, so caches
  // can be keyed to the data. Likes, favorites and comments leave the version alone.
  await db.schema
    .createTable('counters')
    .addColumn('name', 'varchar(32)', (c) => c.primaryKey())
    .addColumn('value', 'bigint', (c) => c.notNull())
    .execute();
  for (const name of ['posts', 'posts:safe', 'posts:sketchy', 'posts:unsafe']) {
    await sql`INSERT INTO counters (name, value) VALUES (${name}, 0)`.execute(db);
  }
  await sql`INSERT INTO counters (name, value) VALUES ('version', 1)`.execute(db);
  if (dialect === 'sqlite') await sqliteSchema(db);
  else await postgresSchema(db);
}

async function sharedTables(db: Kysely<any>, dialect: DialectName): Promise<void> {
  await withId(db.schema.createTable('users'), dialect)
    .addColumn('username', 'varchar(32)', (c) => c.notNull())
    .addColumn('username_lower', 'varchar(32)', (c) => c.notNull().unique())
    .addColumn('email', 'varchar(320)')
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('role', 'varchar(16)', (c) => c.notNull().defaultTo('user'))
    .addColumn('tier', 'varchar(16)', (c) => c.notNull().defaultTo('free'))
    .addColumn('bio', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('avatar_path', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_seen_at', 'bigint')
    .execute();
  await db.schema.createIndex('users_last_seen').on('users').column('last_seen_at').execute();

  await withId(db.schema.createTable('sessions'), dialect)
    .addColumn('user_id', 'integer', cascade('users'))
    .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sessions_user').on('sessions').column('user_id').execute();

  await withId(db.schema.createTable('api_keys'), dialect)
    .addColumn('user_id', 'integer', cascade('users'))
    .addColumn('name', 'varchar(64)', (c) => c.notNull())
    .addColumn('key_hash', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('key_prefix', 'varchar(16)', (c) => c.notNull())
    .addColumn('is_active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_used', 'bigint')
    .addColumn('revoked_at', 'bigint')
    .execute();
  await db.schema.createIndex('api_keys_user').on('api_keys').columns(['user_id', 'is_active']).execute();

  await withId(db.schema.createTable('posts'), dialect)
    .addColumn('uploader_id', 'integer', cascade('users'))
    .addColumn('title', 'varchar(200)', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('content_rating', 'varchar(8)', (c) => c.notNull())
    .addColumn('media_type', 'varchar(8)', (c) => c.notNull())
    .addColumn('mime', 'varchar(64)', (c) => c.notNull())
    .addColumn('file_size', 'bigint', (c) => c.notNull())
    .addColumn('width', 'integer', (c) => c.notNull())
    .addColumn('height', 'integer', (c) => c.notNull())
    .addColumn('duration', 'double precision')
    .addColumn('is_animated', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('sha256', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('phash', 'varchar(16)')
    .addColumn('file_path', 'text', (c) => c.notNull())
    .addColumn('thumb_path', 'text', (c) => c.notNull())
    .addColumn('preview_path', 'text')
    .addColumn('like_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('comment_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('favorite_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    // Codecs of a video post, e.g. `h264,aac` (null for images).
    .addColumn('codecs', 'varchar(64)')
    // The post's tag names, sorted by code unit and joined by spaces (modules/posts/tag-string.ts).
    .addColumn('tag_string', 'text', (c) => c.notNull().defaultTo(''))
    // The post's list item but its counts, written by triggers (schema/list-item.ts).
    .addColumn('item_head', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('item_tail', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  // No index on the rating alone: three values make a poor one, and with it "rating + most liked"
  // sorted every post of the rating. "One rating, at least N likes, most liked first" walks
  // posts_rating_likes in order and counts its matches from the index alone.
  for (const [name, cols] of [
    ['posts_created', ['created_at', 'id']],
    ['posts_uploader', ['uploader_id', 'created_at']],
    ['posts_likes', ['like_count', 'created_at']],
    ['posts_comments', ['comment_count', 'created_at']],
    ['posts_favorites', ['favorite_count', 'created_at']],
    ['posts_rating_likes', ['content_rating', 'like_count', 'created_at', 'id']],
  ] as const) {
    await db.schema
      .createIndex(name)
      .on('posts')
      .columns([...cols])
      .execute();
  }

  await withId(db.schema.createTable('tags'), dialect)
    .addColumn('name', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('post_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('tags_post_count').on('tags').columns(['post_count', 'id']).execute();
  await db.schema.createIndex('tags_created').on('tags').columns(['created_at', 'id']).execute();

  await db.schema
    .createTable('post_tags')
    .addColumn('post_id', 'integer', cascade('posts'))
    .addColumn('tag_id', 'integer', cascade('tags'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('post_tags_pk', ['post_id', 'tag_id'])
    .execute();
  await db.schema.createIndex('post_tags_tag').on('post_tags').columns(['tag_id', 'created_at', 'post_id']).execute();
  await db.schema.createIndex('post_tags_created').on('post_tags').columns(['created_at', 'tag_id']).execute();

  await withId(db.schema.createTable('pools'), dialect)
    .addColumn('creator_id', 'integer', cascade('users'))
    .addColumn('name', 'varchar(128)', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('is_public', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('post_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('pools_public').on('pools').columns(['is_public', 'updated_at']).execute();
  await db.schema.createIndex('pools_creator').on('pools').columns(['creator_id', 'updated_at']).execute();

  await db.schema
    .createTable('pool_posts')
    .addColumn('pool_id', 'integer', cascade('pools'))
    .addColumn('post_id', 'integer', cascade('posts'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('added_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('pool_posts_pk', ['pool_id', 'post_id'])
    .execute();
  await db.schema.createIndex('pool_posts_position').on('pool_posts').columns(['pool_id', 'position']).execute();
  await db.schema.createIndex('pool_posts_post').on('pool_posts').column('post_id').execute();

  await withId(db.schema.createTable('comments'), dialect)
    .addColumn('post_id', 'integer', cascade('posts'))
    .addColumn('user_id', 'integer', cascade('users'))
    .addColumn('parent_id', 'integer', (c) => c.references('comments.id').onDelete('cascade'))
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('reply_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('comments_post').on('comments').columns(['post_id', 'created_at']).execute();
  await db.schema.createIndex('comments_user').on('comments').columns(['user_id', 'created_at']).execute();
  await db.schema.createIndex('comments_parent').on('comments').column('parent_id').execute();
  await db.schema.createIndex('comments_created').on('comments').column('created_at').execute();

  for (const table of ['likes', 'favorites']) {
    await db.schema
      .createTable(table)
      .addColumn('user_id', 'integer', cascade('users'))
      .addColumn('post_id', 'integer', cascade('posts'))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint(`${table}_pk`, ['user_id', 'post_id'])
      .execute();
    await db.schema.createIndex(`${table}_post`).on(table).columns(['post_id', 'created_at']).execute();
    await db.schema.createIndex(`${table}_created`).on(table).column('created_at').execute();
  }
}
