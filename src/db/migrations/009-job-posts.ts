import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

/**
 * job_posts: the posts a job goes over, when they are chosen when the job is made rather than
 * found again as it runs (a bulk tag edit takes the posts its query matches at the time of the
 * request, and a post that starts or stops matching later must not change that). One row a post,
 * in the primary key's order, so the job walks them in batches by post id; a step deletes the rows
 * it has done in its own transaction, and deleting a job deletes its rows. No reference to posts:
 * a post deleted meanwhile is skipped.
 */
export async function up(db: Kysely<any>, _dialect: DialectName): Promise<void> {
  await db.schema
    .createTable('job_posts')
    .addColumn('job_id', 'integer', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
    .addColumn('post_id', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('job_posts_pkey', ['job_id', 'post_id'])
    .execute();
}
