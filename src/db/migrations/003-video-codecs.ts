import type { Kysely } from 'kysely';

/** Codecs of a video post, e.g. `h264,aac` (null for images). */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('posts').addColumn('codecs', 'varchar(64)').execute();
}
