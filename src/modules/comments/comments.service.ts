import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/types.ts';
import { moveCount } from '../../db/counters.ts';
import type { Deps, Viewer } from '../../core/deps.ts';
import { badRequest, notFound } from '../../core/errors.ts';
import { avatarUrl } from '../../core/media-paths.ts';
import { assertOwnerOrModerator } from '../../core/policy.ts';
import { iso } from '../../core/schemas.ts';
import { parseId } from '../../core/ids.ts';
import { toId } from '../../core/ids.ts';
import type { NewComment } from './comments.schemas.ts';
import { recordAudit } from '../moderation/audit.repo.ts';

function commentQuery(db: Kysely<DB>) {
  return db
    .selectFrom('comments')
    .innerJoin('users', 'users.id', 'comments.user_id')
    .select([
      'comments.id',
      'comments.post_id',
      'comments.parent_id',
      'comments.content',
      'comments.created_at',
      'comments.reply_count',
      'users.username',
      'users.avatar_path',
    ]);
}
type Row = Awaited<ReturnType<ReturnType<typeof commentQuery>['execute']>>[number];

const toJson = (config: Deps['config'], c: Row) => ({
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
    const post = await moveCount(trx, 'posts', 'comment_count', postId, 1)
      .set({ last_commented_at: sql<number>`CASE WHEN last_commented_at > ${now} THEN last_commented_at ELSE ${now} END` })
      .returning('id')
      .executeTakeFirst();
    if (!post) notFound('Post', body.postId);
    let parentId: number | null = null;
    if (parentRaw !== null) {
      const parentNumber = toId(parentRaw);
      const parent =
        parentNumber === null ? undefined : await trx.selectFrom('comments').select(['id', 'post_id']).where('id', '=', parentNumber).executeTakeFirst();
      if (!parent) notFound('Parent comment', parentRaw);
      if (parent!.post_id !== postId) {
        badRequest(`field 'parentId': comment ${parentRaw} belongs to another post`, [{ field: 'parentId', message: 'must be a comment of the same post' }]);
      }
      parentId = parent!.id;
      await moveCount(trx, 'comments', 'reply_count', parentId, 1).execute();
    }
    const row = await trx
      .insertInto('comments')
      .values({ post_id: postId, user_id: viewer.id, parent_id: parentId, content, reply_count: 0, created_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    return commentQuery(trx).where('comments.id', '=', row.id).executeTakeFirstOrThrow();
  });
  return { message: 'Comment posted', comment: toJson(deps.config, row) };
}

export async function listComments(deps: Deps, rawPostId: string, page: number, limit: number) {
  const postId = parseId(rawPostId, 'Post');
  const post = await deps.db.selectFrom('posts').select('id').where('id', '=', postId).executeTakeFirst();
  if (!post) notFound('Post', rawPostId);
  const [rows, total] = await Promise.all([
    commentQuery(deps.db)
      .where('comments.post_id', '=', postId)
      .orderBy('comments.created_at')
      .orderBy('comments.id')
      .limit(limit)
      .offset((page - 1) * limit)
      .execute(),
    deps.db.selectFrom('comments').select(sql<number>`count(*)`.as('n')).where('post_id', '=', postId).executeTakeFirstOrThrow(),
  ]);
  const n = Number(total.n);
  return { comments: rows.map((r) => toJson(deps.config, r)), total: n, page, totalPages: Math.ceil(n / limit) };
}

/** Deletes a comment with all its replies; the post's count drops by how many went. */
export async function deleteComment(deps: Deps, viewer: Viewer, rawId: string) {
  const id = parseId(rawId, 'Comment');
  await deps.db.transaction().execute(async (trx) => {
    const found = await trx.selectFrom('comments').select('post_id').where('id', '=', id).executeTakeFirst();
    if (!found) notFound('Comment', rawId);
    // Lock the post's row as createComment does, then read again: no reply can join the thread
    // between counting it and deleting it (PostgreSQL; SQLite runs one transaction at a time).
    await trx
      .updateTable('posts')
      .set((eb) => ({ comment_count: eb.ref('comment_count') }))
      .where('id', '=', found!.post_id)
      .execute();
    const c = await trx.selectFrom('comments').select(['id', 'post_id', 'user_id', 'parent_id', 'content']).where('id', '=', id).executeTakeFirst();
    if (!c) notFound('Comment', rawId);
    assertOwnerOrModerator(viewer, c!.user_id, 'comment');
    const thread = await trx
      .withRecursive('thread(id)', (db) =>
        db
          .selectFrom('comments')
          .select('id')
          .where('id', '=', id)
          .unionAll(db.selectFrom('comments').innerJoin('thread', 'thread.id', 'comments.parent_id').select('comments.id')),
      )
      .selectFrom('thread')
      .select(sql<number>`count(*)`.as('n'))
      .executeTakeFirstOrThrow();
    await trx.deleteFrom('comments').where('id', '=', id).execute();
    await moveCount(trx, 'posts', 'comment_count', c!.post_id, -Number(thread.n))
      .set({ last_commented_at: sql<number | null>`(SELECT MAX(created_at) FROM comments WHERE post_id = ${c!.post_id})` })
      .execute();
    if (c!.user_id !== viewer.id) await auditModeratorDelete(trx, viewer, deps.clock.now(), c!, Number(thread.n));
    if (c!.parent_id !== null) {
      await moveCount(trx, 'comments', 'reply_count', c!.parent_id, -1).execute();
    }
  });
  return { message: `Comment ${rawId} deleted` };
}

/** A moderator's delete of someone else's comment goes in the audit log, with what it said. */
async function auditModeratorDelete(
  trx: Kysely<DB>,
  viewer: Viewer,
  at: number,
  c: { id: number; post_id: number; user_id: number; content: string },
  removed: number,
) {
  const author = await trx.selectFrom('users').select('username').where('id', '=', c.user_id).executeTakeFirst();
  await recordAudit(trx, viewer, at, {
    action: 'comment.delete',
    target: `comment:${c.id}`,
    details: { postId: String(c.post_id), author: author?.username ?? null, content: c.content, removed },
  });
}
