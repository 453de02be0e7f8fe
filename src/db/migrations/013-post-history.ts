import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

/**
 * Posts gain `source` (a URL, null for none) and `parent_id` (another post; a deleted parent
 * leaves its children without one), with an index for a post's children and has:children.
 *
 * post_versions: a post's title, tags (its tag string), rating, source and parent after each
 * change of one of them, numbered from 1 per post, with who made it (null: the system, or an
 * account since deleted) and when. Version 1 is the post as uploaded; it is written with the
 * first change (until then the post's row is it), so uploads, imports and the seeder write
 * nothing here. A version's parent_id is no reference: the history keeps a parent deleted since.
 */
export async function up(db: Kysely<any>, _dialect: DialectName): Promise<void> {
  await db.schema.alterTable('posts').addColumn('source', 'varchar(1024)').execute();
  await db.schema
    .alterTable('posts')
    .addColumn('parent_id', 'integer', (c) => c.references('posts.id').onDelete('set null'))
    .execute();
  await db.schema.createIndex('posts_parent').on('posts').column('parent_id').where(sql.ref('parent_id'), 'is not', null).execute();
  await db.schema
    .createTable('post_versions')
    .addColumn('post_id', 'integer', (c) => c.notNull().references('posts.id').onDelete('cascade'))
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('editor_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('tag_string', 'text', (c) => c.notNull())
    .addColumn('content_rating', 'varchar(16)', (c) => c.notNull())
    .addColumn('source', 'varchar(1024)')
    .addColumn('parent_id', 'integer')
    .addPrimaryKeyConstraint('post_versions_pk', ['post_id', 'version'])
    .execute();
}
