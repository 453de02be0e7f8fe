import { sql, type Kysely } from 'kysely';

/**
 * pending_posts: uploads held for a moderator's approval (UPLOAD_APPROVAL). A pending upload is not
 * a row of posts, so nothing that reads posts (lists, search and its in-memory sets, counters, tag
 * counts, profiles, similar images, the Danbooru API) sees it. Its `id` is taken from the posts'
 * own sequence when it is uploaded, so publishing it inserts the post under that id. `post` holds
 * the posts columns of the upload as JSON and `tags` the tags asked for (names and categories), so
 * the tags go through the one write path (aliases, implications) when it is published.
 *
 * The 'published' counter moves each time a post is published this way: a post then appears with
 * an id below the highest, which readers that find new posts by id (the newest order, the similar
 * images index) would otherwise never read.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('pending_posts')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('uploader_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('sha256', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('title', 'varchar(200)', (c) => c.notNull())
    .addColumn('content_rating', 'varchar(8)', (c) => c.notNull())
    .addColumn('thumb_path', 'text', (c) => c.notNull())
    .addColumn('tags', 'text', (c) => c.notNull())
    .addColumn('post', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('pending_posts_created').on('pending_posts').columns(['created_at', 'id']).execute();
  await db.schema.createIndex('pending_posts_uploader').on('pending_posts').columns(['uploader_id', 'created_at']).execute();
  await sql`INSERT INTO counters (name, value) VALUES ('published', 0)`.execute(db);
}
