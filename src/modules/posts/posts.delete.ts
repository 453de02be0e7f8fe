import { movePostCounts } from '../../db/counters.ts';
import type { Db } from '../../db/engine.ts';
import type { Actor } from '../../core/deps.ts';
import { type AuditEntry, recordAudit } from '../moderation/audit.repo.ts';
import { versioned } from './post-versions.ts';
import { tagIdsOfPost } from './post-tags.repo.ts';
import { clearParents, deletePostRow, lockPostToDelete, poolIdsOfPost, touchChildren } from './posts.repo.ts';

/** Who deletes a post (null: the system) and when: its children's new versions say so. */
export interface Deletion {
  editorId: number | null;
  now: number;
}

/**
 * Deletes a post and everything hanging off it in one transaction, keeping every stored counter
 * exact: tag post counts and pool post counts go down; likes, favorites, comments, tag links and
 * pool entries go with the post (ON DELETE CASCADE). Its children lose their parent, each with a
 * new version by the deleter. Returns the media paths to remove, or null.
 * `audit`: the audit entry of a moderator's delete, written in the same transaction.
 */
export async function deletePostRows(
  db: Db,
  postId: number,
  by: Deletion = { editorId: null, now: Date.now() },
  audit?: { by: Actor; at: number; entry: AuditEntry },
): Promise<string[] | null> {
  return db.transaction().execute(async (trx) => {
    // Lock the post's row first, as edits and comments do: a concurrent edit or second delete
    // waits, then finds the post as it is now (or gone), so no count moves twice.
    const post = await lockPostToDelete(trx, postId);
    if (!post) return null;
    const tags = await tagIdsOfPost(trx, postId);
    const pools = await poolIdsOfPost(trx, postId);
    await movePostCounts(trx, 'tags', new Map(tags.map((t) => [t.tag_id, -1])));
    await movePostCounts(trx, 'pools', new Map(pools.map((p) => [p.pool_id, -1])));
    // Touching the children locks their rows before their versions are read, as an edit does.
    const children = (await touchChildren(trx, postId, by.now)).map((c) => c.id);
    if (children.length) {
      await versioned(trx, children, by.editorId, by.now, async () => {
        await clearParents(trx, children);
      });
    }
    await deletePostRow(trx, postId);
    if (audit) await recordAudit(trx, audit.by, audit.at, audit.entry);
    return [post.file_path, post.thumb_path, post.preview_path].filter((p): p is string => Boolean(p));
  });
}
