import { tmpDirOf } from '../../config.ts';
import type { HeldPosts } from './held-posts.ts';
import type { Deps, Viewer } from '../../core/deps.ts';
import { withMediaJournal } from '../../storage/media-journal.ts';
import { AppError, notFound } from '../../core/errors.ts';
import { assertOwnerOrModerator } from '../../core/policy.ts';
import { parseTags, type TagInput } from '../tags/tag-name-rules.ts';
import { applyingImplications, changingParents } from '../../db/locks.ts';
import type { Tx } from '../../db/engine.ts';
import { checkParent, parseParentId, parseSource } from './post-family.ts';
import { versioned } from './post-versions.ts';
import { deletePostRows } from './posts.delete.ts';
import { parseId } from '../../core/ids.ts';
import { getPost } from './post-detail.ts';
import type { PostPatch } from './posts.schemas.ts';
import { refuseImpliedRemoval, replacePostTags, tagsForWrite } from './post-tags.ts';
import { recordAudit } from '../moderation/audit.repo.ts';
import { findPostToDelete, touchPostToEdit, updatePostFields } from './posts.repo.ts';

function tagInput(raw: string[] | string): TagInput {
  const { errors: problems, ...input } = parseTags(typeof raw === 'string' ? raw.split(',') : raw);
  if (problems.length) throw new AppError(400, `field 'tags': ${problems.join('; ')}`, { details: problems.map((message) => ({ field: 'tags', message })) });
  return input;
}

/** What an edit or a revert sets; a field left undefined stays as it is. */
export interface PostChanges {
  title?: string;
  content?: string;
  contentRating?: string;
  source?: string | null;
  parentId?: number | null;
  tags?: TagInput;
  /** An edit refuses to drop a tag a kept one implies; a revert lets the implication add it back. */
  keepImplied?: boolean;
  /** What the audit log records of a moderator's change to someone else's post (post.edit). */
  audit: Record<string, unknown>;
}

/** Edits title, content, tags (the full new set), rating, source and parent; tag counts move in the same transaction. */
export async function editPost(deps: Deps, viewer: Viewer, rawId: string, patch: PostPatch) {
  const id = parseId(rawId, 'Post');
  const title = patch.title?.trim();
  if (title === '') throw new AppError(400, "field 'title' must not be empty", { details: [{ field: 'title', message: 'must not be empty' }] });
  await deps.db.transaction().execute((trx) =>
    changePost(trx, deps, viewer, id, rawId, {
      title,
      content: patch.content,
      contentRating: patch.contentRating,
      tags: patch.tags === undefined ? undefined : tagInput(patch.tags),
      source: patch.source === undefined ? undefined : parseSource(patch.source),
      parentId: patch.parentId === undefined ? undefined : parseParentId(patch.parentId),
      audit: { ...patch },
    }),
  );
  return getPost(deps, rawId, viewer);
}

/**
 * Applies `changes` to post `id` as its uploader or a moderator (403 for anyone else), in the
 * caller's transaction, and records a version when one of the five versioned fields changed.
 */
export async function changePost(trx: Tx, deps: Deps, viewer: Viewer, id: number, rawId: string, changes: PostChanges): Promise<void> {
  const now = deps.clock.now();
  // Before any other lock (a title edit moves the data version): see db/locks.ts.
  if (changes.tags !== undefined) await applyingImplications(trx);
  if (changes.parentId != null) await changingParents(trx);
  // Writing first locks the post's row (deletes and comments do the same), so what is read
  // below is current; a refused edit is rolled back with the transaction.
  const post = await touchPostToEdit(trx, id, now);
  if (!post) return notFound('Post', rawId);
  assertOwnerOrModerator(viewer, post.uploader_id, 'post');
  if (changes.parentId != null) await checkParent(trx, id, changes.parentId);
  // A moderator's edit of someone else's post is theirs to answer for.
  if (post.uploader_id !== viewer.id) await recordAudit(trx, viewer, now, { action: 'post.edit', target: `post:${id}`, details: changes.audit });
  await versioned(trx, [id], viewer.id, now, async () => {
    const set = {
      ...(changes.title !== undefined ? { title: changes.title } : {}),
      ...(changes.content !== undefined ? { description: changes.content } : {}),
      ...(changes.contentRating !== undefined ? { content_rating: changes.contentRating } : {}),
      ...(changes.source !== undefined ? { source: changes.source } : {}),
      ...(changes.parentId !== undefined ? { parent_id: changes.parentId } : {}),
    };
    if (Object.keys(set).length) await updatePostFields(trx, id, set);
    if (changes.tags === undefined) return;
    const tags = await tagsForWrite(trx, changes.tags, now);
    if (!changes.keepImplied) await refuseImpliedRemoval(trx, id, changes.tags, tags);
    await replacePostTags(trx, id, post.created_at, tags);
  });
}

/** Deletes a post (its uploader or a moderator), then its media files. */
export async function deletePost(deps: Deps, viewer: Viewer, rawId: string, held: HeldPosts | null = null) {
  const id = parseId(rawId, 'Post');
  const post = await findPostToDelete(deps.db, id);
  // Not published: an upload waiting for approval is withdrawn by its uploader (rejected by a moderator), else 404.
  if (!post) return held ? held.withdraw(deps, viewer, id, rawId) : notFound('Post', rawId);
  assertOwnerOrModerator(viewer, post.uploader_id, 'post');
  const paths = [post.file_path, post.thumb_path, post.preview_path].filter((p): p is string => Boolean(p));
  const audit =
    post.uploader_id === viewer.id
      ? undefined
      : { action: 'post.delete' as const, target: `post:${id}`, details: { title: post.title, uploader: post.username } };
  return withMediaJournal(tmpDirOf(deps.config), paths, async () => {
    const now = deps.clock.now();
    const files = await deletePostRows(deps.db, id, { editorId: viewer.id, now }, audit && { by: viewer, at: now, entry: audit });
    if (files === null) return notFound('Post', rawId); // a concurrent delete got there first
    await Promise.all(files.map((f) => deps.media.delete(f)));
    return { message: `Post ${rawId} deleted` };
  });
}
