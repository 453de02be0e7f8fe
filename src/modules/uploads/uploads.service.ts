import fs from 'node:fs/promises';
import path from 'node:path';
import type { FastifyRequest } from 'fastify';
import type { Deps, Viewer } from '../../core/deps.ts';
import { AppError, badRequest } from '../../core/errors.ts';
import { isUniqueViolation } from '../../db/dialect.ts';
import type { MediaStore } from '../../storage/media-store.ts';
import { insertPost } from '../posts/posts.repo.ts';
import { storeMedia, removeFiles } from './process-media.ts';
import { receiveFile, type Received } from './receive.ts';
import { parseUploadFields, UPLOAD_FIELDS } from './upload-fields.ts';

async function existingPostId(deps: Deps, sha256: string): Promise<string | null> {
  const row = await deps.db.selectFrom('posts').select('id').where('sha256', '=', sha256).executeTakeFirst();
  return row ? String(row.id) : null;
}

const duplicate = (postId: string | null): never => {
  throw new AppError(409, `This file was uploaded before as post ${postId}`, postId ? { postId } : {});
};

/** Reads the multipart body: exactly one `file`, and the known text fields. */
async function readParts(deps: Deps, req: FastifyRequest, onFile: (r: Received) => void): Promise<Record<string, string>> {
  const fields: Record<string, string> = {};
  const limits = deps.config.uploads;
  const tmpDir = path.join(deps.config.dataDir, 'tmp');
  const parts = req.parts({ limits: { fileSize: Math.max(limits.maxImageBytes, limits.maxVideoBytes) + 1, files: 2, fields: 10 } });
  for await (const part of parts) {
    if (part.type === 'file') {
      if (part.fieldname !== 'file') badRequest(`unknown file field '${part.fieldname}'; send the media as 'file'`);
      onFile(await receiveFile(part, tmpDir, limits));
    } else if ((UPLOAD_FIELDS as readonly string[]).includes(part.fieldname)) {
      fields[part.fieldname] = String(part.value);
    } else {
      badRequest(`unknown field '${part.fieldname}'; accepted: file, ${UPLOAD_FIELDS.join(', ')}`, [{ field: part.fieldname, message: 'unknown field' }]);
    }
  }
  return fields;
}

/** POST /api/upload: stream to disk, check, store, then one transaction for the post and its tags. */
export async function upload(deps: Deps, media: MediaStore, viewer: Viewer, req: FastifyRequest) {
  const files: Received[] = [];
  try {
    const fields = await readParts(deps, req, (r) => files.push(r));
    if (files.length !== 1) badRequest(files.length ? 'Send one file per upload' : "field 'file' is required", [{ field: 'file', message: 'exactly one file' }]);
    const file = files[0];
    const meta = parseUploadFields(fields, file.filename);
    const before = await existingPostId(deps, file.sha256);
    if (before) duplicate(before);

    const stored = await storeMedia(media, file, deps.config.uploads);
    const now = deps.clock.now();
    let id: number;
    try {
      id = await insertPost(deps.db, {
        uploader_id: viewer.id,
        title: meta.title,
        description: meta.description,
        content_rating: meta.rating,
        ...stored.columns,
        like_count: 0,
        comment_count: 0,
        favorite_count: 0,
        created_at: now,
        updated_at: now,
      }, meta.tags);
    } catch (err) {
      // Same bytes uploaded at the same moment: the files are the winner's (same content), keep them.
      if (isUniqueViolation(err)) duplicate(await existingPostId(deps, file.sha256));
      await removeFiles(media, stored.written);
      throw err;
    }
    return {
      message: 'Upload successful',
      post: {
        id: String(id),
        title: meta.title,
        imageUrl: media.publicPath(stored.columns.file_path),
        thumbnailUrl: media.publicPath(stored.columns.thumb_path),
        mediaType: stored.columns.media_type,
      },
    };
  } finally {
    await Promise.all(files.map((f) => fs.rm(f.tmpPath, { force: true })));
  }
}
