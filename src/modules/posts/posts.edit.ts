import { tmpDirOf } from '../../config.ts';
import type { Deps, Viewer } from '../../core/deps.ts';
import { withMediaJournal } from '../../storage/media-journal.ts';
import { AppError, notFound } from '../../core/errors.ts';
import { assertOwnerOrModerator } from '../../core/policy.ts';
import { parseTags, type TagInput } from '../tags/tag-name-rules.ts';
import { applyingImplications } from '../../db/locks.ts';
import { deletePostRows } from './posts.delete.ts';
import { parseId } from '../../core/ids.ts';
import { getPost } from './posts.service.ts';
import type { PostPatch } from './posts.schemas.ts';
import { refuseImpliedRemoval, replacePostTags, tagsForWrite } from './post-tags.ts';
import { recordAudit } from '../moderation/audit.repo.ts';

function tagInput(raw: string[] | string): TagInput {
  const { errors: problems, ...input } = parseTags(typeof raw === 'string' ? raw.split(',') : raw);
  if (problems.length) throw new AppError(400, `field 'tags': ${problems.join('; ')}`, { details: problems.map((message) => ({ field: 'tags', message })) });
  return input;
}

/** Edits title, content, tags (the full new set) and rating; tag counts move in the same transaction. */
export async function editPost(deps: Deps, viewer: Viewer, rawId: string, patch: PostPatch) {
  const id = parseId(rawId, 'Post');
  const wanted = patch.tags === undefined ? undefined : tagInput(patch.tags);
  const title = patch.title?.trim();
  if (title === '') throw new AppError(400, "field 'title' must not be empty", { details: [{ field: 'title', message: 'must not be empty' }] });
  await deps.db.transaction().execute(async (trx) => {
    // Before any other lock (a title edit moves the data version): see db/locks.ts.
    if (wanted !== undefined) await applyingImplications(trx);
    // Writing first locks the post's row (deletes and comments do the same), so the tag set read
    // below is current; a refused edit is rolled back with the transaction.
    const post = await trx
      .updateTable('posts')
      .set({
        updated_at: deps.clock.now(),
        ...(title !== undefined ? { title } : {}),
        ...(patch.content !== undefined ? { description: patch.content } : {}),
        ...(patch.contentRating !== undefined ? { content_rating: patch.contentRating } : {}),
      })
      .where('id', '=', id)
      .returning(['uploader_id', 'created_at'])
      .executeTakeFirst();
    if (!post) notFound('Post', rawId);
    assertOwnerOrModerator(viewer, post!.uploader_id, 'post');
    // A moderator's edit of someone else's post is theirs to answer for.
    if (post!.uploader_id !== viewer.id) await recordAudit(trx, viewer, deps.clock.now(), { action: 'post.edit', target: `post:${id}`, details: { ...patch } });
    if (wanted === undefined) return;
    const tags = await tagsForWrite(trx, wanted, deps.clock.now());
    await refuseImpliedRemoval(trx, id, wanted, tags);
    await replacePostTags(trx, id, post!.created_at, tags);
  });
  return getPost(deps, rawId, viewer);
}

/** Deletes a post (its uploader or a moderator), then its media files. */
export async function deletePost(deps: Deps, viewer: Viewer, rawId: string) {
  const id = parseId(rawId, 'Post');
  const post = await deps.db
    .selectFrom('posts')
    .innerJoin('users', 'users.id', 'posts.uploader_id')
    .select(['uploader_id', 'file_path', 'thumb_path', 'preview_path', 'title', 'users.username'])
    .where('posts.id', '=', id)
    .executeTakeFirst();
  if (!post) return notFound('Post', rawId);
  assertOwnerOrModerator(viewer, post.uploader_id, 'post');
  const paths = [post.file_path, post.thumb_path, post.preview_path].filter((p): p is string => Boolean(p));
  const audit =
    post.uploader_id === viewer.id
      ? undefined
      : { action: 'post.delete' as const, target: `post:${id}`, details: { title: post.title, uploader: post.username } };
  return withMediaJournal(tmpDirOf(deps.config), paths, async () => {
    const files = await deletePostRows(deps.db, id, audit && { by: viewer, at: deps.clock.now(), entry: audit });
    if (files === null) return notFound('Post', rawId); // a concurrent delete got there first
    await Promise.all(files.map((f) => deps.media.delete(f)));
    return { message: `Post ${rawId} deleted` };
  });
}
