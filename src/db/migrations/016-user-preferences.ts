import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

/**
 * user_preferences: a member's personal filters of GET /api/posts, one row per member who saved
 * any (no row: the defaults, nothing hidden). `blacklist` is a JSON array of queries in the search
 * language (at most 100 of at most 1,000 characters: checked by the API, not here); `ratings` the
 * ratings shown, comma-separated (`safe,sketchy`). Read on every list request of the member, by
 * its primary key, so every instance applies a change at once. Goes with its account.
 */
export async function up(db: Kysely<any>, _dialect: DialectName): Promise<void> {
  await db.schema
    .createTable('user_preferences')
    .addColumn('user_id', 'integer', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('blacklist', 'text', (c) => c.notNull())
    .addColumn('ratings', 'varchar(64)', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
}
