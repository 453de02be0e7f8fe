import type { Tx } from '../../db/engine.ts';
import type { Deps, Viewer } from '../../core/deps.ts';
import { badRequest, notFound } from '../../core/errors.ts';
import { avatarUrl } from '../../core/media-paths.ts';
import { assertOwnerOrModerator } from '../../core/policy.ts';
import { iso } from '../../core/schemas.ts';
import { parseId } from '../../core/ids.ts';
import { toId } from '../../core/ids.ts';
import type { NewComment } from './comments.schemas.ts';
import { recordAudit } from '../moderation/audit.repo.ts';
import * as repo from './comments.repo.ts';

/** A comment as the API gives it. */
export const commentJson = (config: Deps['config'], c: repo.CommentRow) => ({
  id: String(c.id),
  postId: String(c.post_id),
  parentId: c.parent_id === null ? null : String(c.parent_id),
  content: c.content,
  author: { username: c.username, avatar: avatarUrl(config, c.avatar_path) },
  createdAt: iso(c.created_at),
  replyCount: c.reply_count,
});

/** A comment, or a reply to a comment of the same post; the post's count and the parent's reply count move with it. */
export async function createComment(deps: Deps, viewer: Viewer, body: NewComment) {
  const content = body.content.trim();
  if (content === '') badRequest("field 'content' must not be empty", [{ field: 'content', message: 'must not be empty' }]);
  const postId = toId(body.postId) ?? notFound('Post', body.postId);
  const parentRaw = body.parentId ?? null;
  // Read back inside the transaction: a thread deleted right after it commits may take the reply with it.
  const row = await deps.db.transaction().execute(async (trx) => {
    // Counting the comment first locks the post's row, so comment writes on one post take turns
    // (see deleteComment): a reply cannot land under a thread that is being deleted.
    const now = deps.clock.now();
    if (!(await repo.countNewComment(trx, postId, now))) notFound('Post', body.postId);
    let parentId: number | null = null;
    if (parentRaw !== null) {
      const parentNumber = toId(parentRaw);
      const parent = parentNumber === null ? undefined : await repo.findParent(trx, parentNumber);
      if (!parent) notFound('Parent comment', parentRaw);
      if (parent!.post_id !== postId) {
        badRequest(`field 'parentId': comment ${parentRaw} belongs to another post`, [{ field: 'parentId', message: 'must be a comment of the same post' }]);
      }
      parentId = parent!.id;
      await repo.moveReplyCount(trx, parentId, 1);
    }
    const id = await repo.insertComment(trx, { postId, userId: viewer.id, parentId, content, now });
    return repo.commentById(trx, id);
  });
  return { message: 'Comment posted', comment: commentJson(deps.config, row) };
}

export async function listComments(deps: Deps, rawPostId: string, page: number, limit: number) {
  const postId = parseId(rawPostId, 'Post');
  if (!(await repo.postExists(deps.db, postId))) notFound('Post', rawPostId);
  const { rows, total: n } = await repo.commentsPage(deps.db, postId, limit, (page - 1) * limit);
  return { comments: rows.map((r) => commentJson(deps.config, r)), total: n, page, totalPages: Math.ceil(n / limit) };
}

/** Deletes a comment with all its replies; the post's count drops by how many went. */
export async function deleteComment(deps: Deps, viewer: Viewer, rawId: string) {
  const id = parseId(rawId, 'Comment');
  await deps.db.transaction().execute(async (trx) => {
    const postId = await repo.findCommentPost(trx, id);
    if (postId === undefined) notFound('Comment', rawId);
    // Lock the post's row as createComment does, then read again: no reply can join the thread
    // between counting it and deleting it (PostgreSQL; SQLite runs one transaction at a time).
    await repo.lockPost(trx, postId!);
    const c = await repo.findComment(trx, id);
    if (!c) notFound('Comment', rawId);
    assertOwnerOrModerator(viewer, c!.user_id, 'comment');
    const removed = await repo.countThread(trx, id);
    await repo.deleteThread(trx, id);
    await repo.uncountComments(trx, c!.post_id, removed);
    if (c!.user_id !== viewer.id) await auditModeratorDelete(trx, viewer, deps.clock.now(), c!, removed);
    if (c!.parent_id !== null) {
      await repo.moveReplyCount(trx, c!.parent_id, -1);
    }
  });
  return { message: `Comment ${rawId} deleted` };
}

/** A moderator's delete of someone else's comment goes in the audit log, with what it said. */
async function auditModeratorDelete(
  trx: Tx,
  viewer: Viewer,
  at: number,
  c: { id: number; post_id: number; user_id: number; content: string },
  removed: number,
) {
  const author = await repo.findUsername(trx, c.user_id);
  await recordAudit(trx, viewer, at, {
    action: 'comment.delete',
    target: `comment:${c.id}`,
    details: { postId: String(c.post_id), author: author ?? null, content: c.content, removed },
  });
}
