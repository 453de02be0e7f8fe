import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

/** What a key of a member could do before scopes existed, and of a moderator or an admin. */
const MEMBER = 'read posts:write comments:write reactions:write pools:write';
const STAFF = `${MEMBER} moderation`;

/**
 * api_keys gets its limits (modules/api-keys/, core/auth.ts): `scopes`, the space-separated scopes
 * it may use; `expires_at`, when it stops working (null: never); `allowed_addresses`, the
 * space-separated addresses and CIDRs it may be used from (null: anywhere); `last_used_ip`, the
 * address of its last use. Keys made before keep what they could do: every scope their owner's
 * role allowed, which for a moderator or an admin includes moderation.
 */
export async function up(db: Kysely<any>, _dialect: DialectName): Promise<void> {
  // One column a statement: SQLite's ALTER TABLE adds one at a time.
  await db.schema
    .alterTable('api_keys')
    .addColumn('scopes', 'varchar(200)', (c) => c.notNull().defaultTo(MEMBER))
    .execute();
  await db.schema.alterTable('api_keys').addColumn('expires_at', 'bigint').execute();
  await db.schema.alterTable('api_keys').addColumn('allowed_addresses', 'varchar(2000)').execute();
  await db.schema.alterTable('api_keys').addColumn('last_used_ip', 'varchar(64)').execute();
  await sql`UPDATE api_keys SET scopes = ${STAFF} WHERE user_id IN (SELECT id FROM users WHERE role IN ('moderator', 'admin'))`.execute(db);
}
