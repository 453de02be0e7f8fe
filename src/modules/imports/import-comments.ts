import type { Deps, Viewer } from '../../core/deps.ts';
import { MAX_COMMENT } from '../comments/comments.schemas.ts';
import type { ImportItem } from './import-item.ts';
import * as repo from './imports.repo.ts';

/**
 * The item's comments not imported before, written as the importing member with their original
 * time; the original author is kept in each one's import record. One transaction a post, with the
 * post's comment count and last comment time, as a comment written here moves them.
 */
export async function importComments(deps: Deps, user: Viewer, item: ImportItem, postId: number): Promise<string[]> {
  if (item.comments.length === 0) return [];
  const warnings: string[] = [];
  const done = await repo.recordsOf(
    deps.db,
    'comment',
    item.origin,
    item.comments.map((c) => c.key),
  );
  const fresh = item.comments.filter((c) => {
    if (done.has(c.key)) return false;
    if (c.body.trim() === '') {
      warnings.push(`comment ${c.key} left out: it is empty`);
      return false;
    }
    return true;
  });
  if (fresh.length === 0) return warnings;
  const now = deps.clock.now();
  await deps.db.transaction().execute(async (trx) => {
    const newest = Math.max(...fresh.map((c) => c.createdAt ?? now));
    await repo.addPostComments(trx, postId, fresh.length, newest);
    for (const c of fresh) {
      const content = [...c.body.trim()].slice(0, MAX_COMMENT).join('');
      const id = await repo.insertComment(trx, { postId, userId: user.id, content, createdAt: c.createdAt ?? now });
      await repo.addRecord(trx, { kind: 'comment', origin: item.origin, originId: c.key, localId: id, author: c.author }, now);
    }
  });
  return warnings;
}
