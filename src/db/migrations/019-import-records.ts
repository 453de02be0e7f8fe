import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

/**
 * import_records: what an import (imageboard import) brought from another board, one row per
 * post, comment or pool, keyed by the board it came from and its id there. The row is written in
 * the transaction that writes the post (or comment, or pool), so an import killed at any moment and
 * run again finds exactly what landed, and a second run adds nothing. `local_id` is the row made
 * here; it has no reference, so a post a moderator deleted since is not brought back by running
 * the import again. `author`, `score` and `fav_count` keep what the origin said (the original
 * uploader or commenter, votes and favorites there) as metadata: they never become likes here.
 */
export async function up(db: Kysely<any>, _dialect: DialectName): Promise<void> {
  await db.schema
    .createTable('import_records')
    .addColumn('kind', 'varchar(8)', (c) => c.notNull().check(sql`kind IN ('post', 'comment', 'pool')`))
    .addColumn('origin', 'varchar(200)', (c) => c.notNull())
    .addColumn('origin_id', 'varchar(100)', (c) => c.notNull())
    .addColumn('local_id', 'integer', (c) => c.notNull())
    .addColumn('author', 'varchar(100)')
    .addColumn('score', 'integer')
    .addColumn('fav_count', 'integer')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('import_records_pk', ['kind', 'origin', 'origin_id'])
    .execute();
  await db.schema.createIndex('import_records_local').on('import_records').columns(['kind', 'local_id']).execute();
}
