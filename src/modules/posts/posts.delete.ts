import type { Kysely } from 'kysely';
import { movePostCounts } from '../../db/counters.ts';
import type { DB } from '../../db/types.ts';
import type { Actor } from '../../core/deps.ts';
import { type AuditEntry, recordAudit } from '../moderation/audit.repo.ts';

/**
 * Deletes a post and everything hanging off it in one transaction, keeping every stored counter
 * exact: tag post counts and pool post counts go down; likes, favorites, comments, tag links and
 * pool entries go with the post (ON DELETE CASCADE). Returns the media paths to remove, or null.
 * `audit`: the audit entry of a moderator's delete, written in the same transaction.
 */
export async function deletePostRows(db: Kysely<DB>, postId: number, audit?: { by: Actor; at: number; entry: AuditEntry }): Promise<string[] | null> {
  return db.transaction().execute(async (trx) => {
    // Lock the post's row first, as edits and comments do: a concurrent edit or second delete
    // waits, then finds the post as it is now (or gone), so no count moves twice.
    const post = await trx
      .updateTable('posts')
      .set((eb) => ({ updated_at: eb.ref('updated_at') }))
      .where('id', '=', postId)
      .returning(['file_path', 'thumb_path', 'preview_path'])
      .executeTakeFirst();
    if (!post) return null;
    const tags = await trx.selectFrom('post_tags').select('tag_id').where('post_id', '=', postId).execute();
    const pools = await trx.selectFrom('pool_posts').select('pool_id').where('post_id', '=', postId).execute();
    await movePostCounts(trx, 'tags', new Map(tags.map((t) => [t.tag_id, -1])));
    await movePostCounts(trx, 'pools', new Map(pools.map((p) => [p.pool_id, -1])));
    await trx.deleteFrom('posts').where('id', '=', postId).execute();
    if (audit) await recordAudit(trx, audit.by, audit.at, audit.entry);
    return [post.file_path, post.thumb_path, post.preview_path].filter((p): p is string => Boolean(p));
  });
}
