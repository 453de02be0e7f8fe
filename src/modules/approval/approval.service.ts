import { tmpDirOf } from '../../config.ts';
import type { Deps, Viewer } from '../../core/deps.ts';
import { AppError, conflict, forbidden, notFound } from '../../core/errors.ts';
import { parseId } from '../../core/ids.ts';
import { avatarUrl, mediaUrl } from '../../core/media-paths.ts';
import { isModerator } from '../../core/policy.ts';
import { iso, type Rating } from '../../core/schemas.ts';
import { isUniqueViolation } from '../../db/engine.ts';
import { withMediaJournal } from '../../storage/media-journal.ts';
import { pagination, userRef } from '../../core/lists.ts';
import { getPost, mediaDetail } from '../posts/post-detail.ts';
import { tagDetails } from '../posts/posts.repo.ts';
import * as repo from './approval.repo.ts';
import type { PendingQuery } from './approval.schemas.ts';

/** Whether the viewer's uploads wait for approval (UPLOAD_APPROVAL): moderators' and admins' never do. */
export async function holdsUploadsOf(deps: Deps, viewer: Viewer): Promise<boolean> {
  const mode = deps.config.uploadApproval;
  if (mode === 'off' || isModerator(viewer)) return false;
  return mode === 'all' || repo.fewerPostsThan(deps.db, viewer.id, deps.config.uploadApprovalMinPosts);
}

/** Who sees a held upload: its uploader and the moderators; to anyone else it does not exist. */
const seesHeld = (viewer: Viewer | null, uploaderId: number): viewer is Viewer => viewer !== null && (viewer.id === uploaderId || isModerator(viewer));

/**
 * The 409 of an upload whose bytes wait for approval already: it names the held post to its
 * uploader and the moderators only (anyone else learns that the file is there, not which post it is).
 */
export async function refuseHeldDuplicate(deps: Deps, viewer: Viewer, sha256: string): Promise<void> {
  const held = await repo.pendingWithFile(deps.db, sha256);
  if (!held) return;
  if (seesHeld(viewer, held.uploader_id)) conflict(`This file was uploaded before as post ${held.id}, which waits for approval`, { postId: String(held.id) });
  conflict('This file was uploaded before and waits for approval');
}

/** GET /api/posts/<id> of a held upload: the post detail with `pending: true`, for its uploader and moderators; null for anyone else. */
export async function heldPostDetail(deps: Deps, id: number, viewer: Viewer | null) {
  const row = await repo.findPending(deps.db, id);
  if (!row || !seesHeld(viewer, row.uploader_id)) return null;
  const p = row.post;
  return {
    id: String(row.id),
    title: row.title,
    content: p.description ?? '',
    ...mediaDetail(deps.config, p),
    stats: { likes: 0, comments: 0, favorites: 0 },
    contentRating: row.content_rating as Rating,
    author: { id: String(row.uploader_id), username: row.username, avatar: avatarUrl(deps.config, row.avatar_path) },
    tags: row.tags.tags,
    tagDetails: await tagDetails(deps.db, row.tags.tags),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.created_at),
    liked: false,
    favorited: false,
    source: p.source ?? null,
    parentId: p.parent_id == null ? null : String(p.parent_id),
    children: [],
    pending: true as const,
  };
}

/** Not waiting for approval: a published post is 409, an unknown one 404. */
async function notPending(deps: Deps, id: number, rawId: string): Promise<never> {
  if (await repo.postExists(deps.db, id)) conflict(`Post ${rawId} is published, not waiting for approval`);
  return notFound('Post', rawId);
}

/** POST /api/posts/<id>/approve (moderators): publishes a held upload; the published post's detail. */
export async function approve(deps: Deps, viewer: Viewer, rawId: string) {
  const id = parseId(rawId, 'Post');
  const row = (await repo.findPending(deps.db, id)) ?? (await notPending(deps, id, rawId));
  if (row.uploader_id === viewer.id) forbidden('You may not approve your own upload: another moderator does');
  const now = deps.clock.now();
  const entry = { action: 'post.approve' as const, target: `post:${id}`, details: { title: row.title, uploader: row.username } };
  let done: boolean;
  try {
    done = await repo.publishPending(deps.db, id, now, { by: viewer, at: now, entry });
  } catch (err) {
    if (isUniqueViolation(err)) conflict(`A post with the same file was published while this one waited; reject post ${rawId}`);
    throw err;
  }
  if (!done) return notPending(deps, id, rawId);
  return getPost(deps, rawId, viewer);
}

/**
 * Rejects a held upload: its row and its media files go (the files stay when a published post has
 * the same bytes: they are that post's too). POST /api/posts/<id>/reject by a moderator (audited,
 * with the reason), or DELETE /api/posts/<id> by its uploader (withdrawing it; not audited). To
 * anyone else it does not exist (404).
 */
export async function reject(deps: Deps, viewer: Viewer, rawId: string, reason: string | null): Promise<void> {
  const id = parseId(rawId, 'Post');
  const row = await repo.findPending(deps.db, id);
  if (!row || !seesHeld(viewer, row.uploader_id)) return notPending(deps, id, rawId);
  const own = row.uploader_id === viewer.id;
  const now = deps.clock.now();
  const audit = own
    ? undefined
    : { by: viewer, at: now, entry: { action: 'post.reject' as const, target: `post:${id}`, details: { title: row.title, uploader: row.username, reason } } };
  const paths = [row.post.file_path, row.post.thumb_path, row.post.preview_path].filter((p): p is string => Boolean(p));
  await withMediaJournal(tmpDirOf(deps.config), paths, async () => {
    if (!(await repo.deletePending(deps.db, id, audit))) notFound('Post', rawId);
    if (!(await repo.postWithFile(deps.db, row.sha256))) await Promise.all(paths.map((f) => deps.media.delete(f)));
  });
}

/** DELETE /api/posts/<id> of a post that is not published: a held upload its uploader withdraws (or a moderator rejects); else 404. */
export async function deleteHeld(deps: Deps, viewer: Viewer, id: number, rawId: string) {
  try {
    await reject(deps, viewer, rawId, null);
  } catch (err) {
    // Published meanwhile (approved) or gone: the delete found no post, which is what it answers.
    if (err instanceof AppError && err.status === 409) notFound('Post', rawId);
    throw err;
  }
  return { message: `Post ${id} deleted` };
}

/** A page of held uploads, oldest first: every one (moderators), or the viewer's own. */
export async function listPending(deps: Deps, q: PendingQuery, uploaderId: number | null) {
  const page = q.page ?? 1;
  const limit = q.limit ?? 50;
  const { rows, total } = await repo.pendingPage(deps.db, uploaderId, limit, (page - 1) * limit);
  return {
    posts: rows.map((r) => ({
      id: String(r.id),
      title: r.title,
      thumbnail: mediaUrl(deps.config, r.thumb_path),
      uploader: userRef(r.username)!,
      createdAt: iso(r.created_at),
      tags: r.tags.tags,
      contentRating: r.content_rating as Rating,
    })),
    pagination: pagination(total, page, limit),
  };
}
