import type { Kysely } from 'kysely';

/**
 * Curated tags. Each tag gets a category (general, artist, copyright, character, meta: Danbooru's
 * five) and a plain-text description. tag_aliases maps an alias name to the tag it stands for:
 * writes and searches read the alias as its target. The target is kept by id, so renaming a tag
 * carries its aliases along; an alias name is no tag's name once its posts have moved.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('tags')
    .addColumn('category', 'varchar(16)', (c) => c.notNull().defaultTo('general'))
    .execute();
  await db.schema
    .alterTable('tags')
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema.createIndex('tags_category').on('tags').columns(['category', 'post_count']).execute();
  await db.schema
    .createTable('tag_aliases')
    .addColumn('from_name', 'varchar(64)', (c) => c.primaryKey().notNull())
    .addColumn('tag_id', 'integer', (c) => c.notNull().references('tags.id').onDelete('cascade'))
    .addColumn('creator_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('tag_aliases_tag').on('tag_aliases').columns(['tag_id']).execute();
}
