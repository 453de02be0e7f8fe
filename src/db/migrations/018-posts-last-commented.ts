import { sql, type Kysely } from 'kysely';

/**
 * posts.last_commented_at: when the post's newest comment was made (epoch ms), or null while it has
 * none, as Danbooru keeps it on its posts. A page of 200 Danbooru posts gave each post's time with a
 * subquery, one lookup in comments' index a commented post, about a third of the statement that
 * reads the page's rows. The writers of comments keep it with the comment count, in the same
 * statement (modules/comments/comments.service.ts); the seeder writes it with each post.
 *
 * Adding the column is instant on both engines; filling it writes each commented post once. On
 * PostgreSQL that fill counts as an edit and moves the data version once, as any migration may.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('posts').addColumn('last_commented_at', 'bigint').execute();
  await sql`UPDATE posts SET last_commented_at = (SELECT MAX(c.created_at) FROM comments c WHERE c.post_id = posts.id)
    WHERE posts.id IN (SELECT post_id FROM comments)`.execute(db);
}
