import { tmpDirOf } from '../../config.ts';
import type { Deps, Viewer } from '../../core/deps.ts';
import { AppError, badRequest } from '../../core/errors.ts';
import { isUniqueViolation } from '../../db/engine.ts';
import { mediaUrl } from '../../core/media-paths.ts';
import type { MediaStore } from '../../storage/media-store.ts';
import { insertPost } from '../posts/posts.repo.ts';
import { withMediaJournal } from '../../storage/media-journal.ts';
import { mediaPaths, storeMedia, removeFiles } from './process-media.ts';
import { removeReceived, type ReceivedForm } from './receive.ts';
import { parseUploadFields } from './upload-fields.ts';
import { findPostIdBySha256 } from './uploads.repo.ts';
import { checkParent } from '../posts/post-family.ts';
import { insertPending } from '../approval/approval.repo.ts';
import { holdsUploadsOf, refuseHeldDuplicate } from '../approval/approval.service.ts';

async function existingPostId(deps: Deps, sha256: string): Promise<string | null> {
  const row = await findPostIdBySha256(deps.db, sha256);
  return row ? String(row.id) : null;
}

const duplicate = (postId: string | null): never => {
  throw new AppError(409, `This file was uploaded before as post ${postId}`, postId ? { postId } : {});
};

/** A 409 when a post, published or waiting for approval, has these bytes. */
async function refuseDuplicate(deps: Deps, viewer: Viewer, sha256: string): Promise<void> {
  const before = await existingPostId(deps, sha256);
  if (before) duplicate(before);
  await refuseHeldDuplicate(deps, viewer, sha256);
}

/**
 * POST /api/upload, once the body is on disk (uploads.routes.ts reads it): check, store, then one
 * transaction for the post and its tags. The form's temporary files are removed whatever happens.
 */
export async function upload(deps: Deps, media: MediaStore, viewer: Viewer, form: ReceivedForm) {
  const { files, fields } = form;
  try {
    // A second file part is refused while reading (formParts: each name once, 'file' the only file field).
    const [file] = files;
    if (!file) badRequest("field 'file' is required", [{ field: 'file', message: 'required' }]);
    const meta = parseUploadFields(fields, file.filename);
    await refuseDuplicate(deps, viewer, file.sha256);
    const held = await holdsUploadsOf(deps, viewer);
    // Before any media is written; the reference itself (ON DELETE SET NULL) covers a parent deleted meanwhile.
    if (meta.parentId !== null) await checkParent(deps.db, null, meta.parentId);

    const { id, stored } = await withMediaJournal(tmpDirOf(deps.config), Object.values(mediaPaths(file)), async () => {
      const stored = await storeMedia(media, file, deps.config.uploads);
      const now = deps.clock.now();
      try {
        const row = {
          uploader_id: viewer.id,
          title: meta.title,
          description: meta.description,
          content_rating: meta.rating,
          source: meta.source,
          parent_id: meta.parentId,
          ...stored.columns,
          like_count: 0,
          comment_count: 0,
          favorite_count: 0,
          created_at: now,
          updated_at: now,
        };
        // Held for approval: stored as any upload, its row kept aside (modules/approval/).
        const id = held ? await insertPending(deps.db, row, meta.tags) : await insertPost(deps.db, row, meta.tags);
        return { id, stored };
      } catch (err) {
        // Same bytes uploaded at the same moment: the files are the winner's (same content), keep them.
        if (isUniqueViolation(err)) await refuseDuplicate(deps, viewer, file.sha256);
        await removeFiles(media, stored.written);
        // A parent deleted since the check: its reference refused the row, which is the 400 the check gives.
        if (meta.parentId !== null) await checkParent(deps.db, null, meta.parentId);
        throw err;
      }
    });
    deps.metrics?.uploaded(stored.columns.media_type, stored.bytes);
    const post = {
      id: String(id),
      title: meta.title,
      imageUrl: mediaUrl(deps.config, stored.columns.file_path),
      thumbnailUrl: mediaUrl(deps.config, stored.columns.thumb_path),
      mediaType: stored.columns.media_type,
    };
    if (held) return { message: "Upload received: it waits for a moderator's approval", post: { ...post, pending: true as const } };
    return { message: 'Upload successful', post };
  } finally {
    await removeReceived(form);
  }
}
