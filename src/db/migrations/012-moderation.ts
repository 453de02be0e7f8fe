import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

const id = (dialect: DialectName) => (c: any) => (dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey().generatedByDefaultAsIdentity());

/**
 * Moderation (modules/moderation/):
 * - reports: a member's report of a post or a comment. The target is kept by type and id without a
 *   foreign key, so a report outlives the post or comment a moderator deleted because of it. One
 *   open report per reporter and target (a partial unique index, so two instances cannot both
 *   insert one); settled ones stay for the record.
 * - user_bans: the ban in force on a user, at most one (lifting it deletes the row; the audit log
 *   keeps the history). `until` null: permanent.
 * - audit_log: every moderator and admin action, written in the transaction of the action. The
 *   actor's name is kept beside its id so an entry still names an account since deleted; actor
 *   null: the command line. `details` is a JSON object as text.
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  await db.schema
    .createTable('reports')
    .addColumn('id', 'integer', id(dialect))
    .addColumn('reporter_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('target_type', 'varchar(8)', (c) => c.notNull().check(sql`target_type IN ('post', 'comment')`))
    .addColumn('target_id', 'integer', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('state', 'varchar(10)', (c) => c.notNull().check(sql`state IN ('open', 'resolved', 'dismissed')`))
    .addColumn('note', 'text')
    .addColumn('settled_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('settled_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('reports_one_open')
    .on('reports')
    .columns(['reporter_id', 'target_type', 'target_id'])
    .unique()
    .where(sql.ref('state'), '=', sql.lit('open'))
    .execute();
  await db.schema.createIndex('reports_state').on('reports').columns(['state', 'id']).execute();

  await db.schema
    .createTable('user_bans')
    .addColumn('user_id', 'integer', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('until', 'bigint')
    .addColumn('banned_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'integer', id(dialect))
    .addColumn('actor_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('actor_name', 'varchar(64)')
    .addColumn('action', 'varchar(40)', (c) => c.notNull())
    .addColumn('target', 'varchar(300)', (c) => c.notNull())
    .addColumn('details', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audit_log_actor').on('audit_log').columns(['actor_id', 'id']).execute();
  await db.schema.createIndex('audit_log_action').on('audit_log').columns(['action', 'id']).execute();
  await db.schema.createIndex('audit_log_target').on('audit_log').columns(['target', 'id']).execute();
}
