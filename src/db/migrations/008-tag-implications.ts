import type { Kysely } from 'kysely';

/**
 * tag_implications: `from_id` implies `to_id`; every write gives a post the tags its tags imply,
 * transitively (modules/tags/). Kept by tag id, so a renamed tag keeps its implications. The
 * primary key finds what a tag implies; the index on to_id finds what implies a tag (the tag object's
 * impliedBy, a cycle check, a backfill's antecedents).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('tag_implications')
    .addColumn('from_id', 'integer', (c) => c.notNull().references('tags.id').onDelete('cascade'))
    .addColumn('to_id', 'integer', (c) => c.notNull().references('tags.id').onDelete('cascade'))
    .addColumn('creator_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('tag_implications_pk', ['from_id', 'to_id'])
    .execute();
  await db.schema.createIndex('tag_implications_to').on('tag_implications').columns(['to_id', 'from_id']).execute();
}
