import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

/**
 * tag_history: every change to a tag (category, description, name), an alias or an implication,
 * with who made it (null: the command line, or an account since deleted), when, and the fields
 * before and after as JSON text (null before a creation and after a deletion). A row belongs to
 * the tag it changed (`tag_id`: the tag, an alias's target, an implication's antecedent) and to
 * the other tag it names (`other_id`: an alias's own tag when the name was one, an implication's
 * consequent), so each of them lists it; the two indexes serve those lists, newest first.
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  await db.schema
    .createTable('tag_history')
    .addColumn('id', 'integer', (c) => (dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey().generatedByDefaultAsIdentity()))
    .addColumn('tag_id', 'integer', (c) => c.notNull().references('tags.id').onDelete('cascade'))
    .addColumn('other_id', 'integer', (c) => c.references('tags.id').onDelete('cascade'))
    .addColumn('kind', 'varchar(12)', (c) => c.notNull().check(sql`kind IN ('tag', 'alias', 'implication')`))
    .addColumn('action', 'varchar(8)', (c) => c.notNull().check(sql`action IN ('create', 'update', 'delete')`))
    .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('before', 'text')
    .addColumn('after', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('tag_history_tag').on('tag_history').columns(['tag_id', 'id']).execute();
  await db.schema.createIndex('tag_history_other').on('tag_history').columns(['other_id', 'id']).execute();
}
