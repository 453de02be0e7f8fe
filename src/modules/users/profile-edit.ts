import { loadSharp } from '../../media/sharp.ts';
import type { Deps, Viewer } from '../../core/deps.ts';
import { AppError, badRequest } from '../../core/errors.ts';
import { contentPath } from '../../core/media-paths.ts';
import { sha256Hex } from '../../core/tokens.ts';
import type { MediaStore } from '../../storage/media-store.ts';
import { withMediaJournal } from '../../storage/media-journal.ts';
import { unclaimed } from '../../db/queries/unclaimed-media.ts';
import { tmpDirOf } from '../../config.ts';
import { getProfile } from './users.service.ts';
import * as repo from './users.repo.ts';

export const MAX_BIO = 1000;
export const AVATAR_SIZE = 256;
export const MAX_AVATAR_BYTES = 10 * 1024 * 1024;

export interface ProfileChange {
  bio?: string;
  avatar?: Buffer;
}

/** Decodes any image sharp reads (50 Mpx at most) and crops it to a square 256 px WebP. */
async function avatarImage(input: Buffer): Promise<Buffer> {
  let out: Buffer;
  try {
    out = await (await loadSharp())(input, { limitInputPixels: 50_000_000, failOn: 'error' })
      .rotate()
      .resize(AVATAR_SIZE, AVATAR_SIZE, { fit: 'cover' })
      .webp({ quality: 85 })
      .toBuffer();
  } catch {
    throw new AppError(415, 'The avatar must be an image (JPEG, PNG, GIF, WebP or AVIF) of at most 50 megapixels', {
      details: [{ field: 'avatar', message: 'not a readable image' }],
    });
  }
  return out;
}

export async function updateProfile(deps: Deps, media: MediaStore, viewer: Viewer, change: ProfileChange) {
  if (change.bio === undefined && change.avatar === undefined) {
    badRequest('Nothing to change: send bio and/or avatar', [{ field: 'bio', message: 'bio or avatar is required' }]);
  }
  if (change.bio !== undefined && [...change.bio].length > MAX_BIO) {
    badRequest(`field 'bio' must be at most ${MAX_BIO} characters long`, [{ field: 'bio', message: `at most ${MAX_BIO} characters` }]);
  }
  const bio = change.bio !== undefined ? { bio: change.bio } : {};
  if (!change.avatar) {
    await repo.setProfile(deps.db, viewer.id, bio);
    return getProfile(deps, viewer.username);
  }
  const image = await avatarImage(change.avatar);
  const rel = contentPath('avatars', sha256Hex(image), 'webp');
  const before = await repo.findAvatarPath(deps.db, viewer.id);
  const old = before?.avatar_path && before.avatar_path !== rel ? [before.avatar_path] : [];
  // The old avatar goes once no one uses it (two users may share one picture).
  await withMediaJournal(tmpDirOf(deps.config), [rel, ...old], async () => {
    await media.put(rel, image);
    await repo.setProfile(deps.db, viewer.id, { ...bio, avatar_path: rel });
    for (const gone of await unclaimed(deps, old)) await media.delete(gone);
  });
  return getProfile(deps, viewer.username);
}
