import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';
import { PRUNE_CHANGES } from './012-tag-change-log.ts';

/**
 * SQLite: title edits go into the change log too (tag_changes, migration 012), so a process
 * keeping the posts of title words in memory (title-word-sets.ts) catches up with them as the
 * tag sets do with tag edits; deletes are logged already. Readers of the log read a logged post
 * again whole, so an entry for a title edit costs the tag sets one harmless read. PostgreSQL
 * keeps no title words (it searches titles by trigram), so it logs tags alone.
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  if (dialect !== 'sqlite') return;
  await sql.raw(`CREATE TRIGGER posts_title_logged_update AFTER UPDATE OF title ON posts WHEN old.title IS NOT new.title
    BEGIN INSERT INTO tag_changes (post_id) VALUES (new.id); ${PRUNE_CHANGES} END`).execute(db);
}
