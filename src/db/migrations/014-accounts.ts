import { sql, type ColumnDefinitionBuilder, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

/**
 * invites: one-time codes that registration takes when REGISTRATION=invite. Only the code's
 * sha256 is stored (as for sessions and API keys). `used_at` is set once, by a conditional update
 * in the registering transaction, so two sign-ups racing on one code cannot both win; `used_by`
 * and `created_by` become null if that account is ever deleted (null `created_by`: made from the
 * command line).
 *
 * password_resets: one-time tokens behind `imageboard user reset-password`, valid until
 * `expires_at`, spent by setting `used_at` in the transaction that sets the password.
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  const id = (c: ColumnDefinitionBuilder) => (dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey().generatedByDefaultAsIdentity());
  await db.schema
    .createTable('invites')
    .addColumn('id', 'integer', id)
    .addColumn('code_hash', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('note', 'varchar(200)', (c) => c.notNull().defaultTo(''))
    .addColumn('created_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint')
    .addColumn('used_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('used_at', 'bigint')
    .addCheckConstraint('invites_used_together', sql`(used_by IS NULL OR used_at IS NOT NULL)`)
    .execute();

  await db.schema
    .createTable('password_resets')
    .addColumn('id', 'integer', id)
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .execute();
  await db.schema.createIndex('password_resets_user').on('password_resets').column('user_id').execute();
}
