import { loadSharp } from '../../media/sharp.ts';
import type { Deps, Viewer } from '../../core/deps.ts';
import { AppError, badRequest } from '../../core/errors.ts';
import { contentPath } from '../../core/media-paths.ts';
import { sha256Hex } from '../../core/tokens.ts';
import type { MediaStore } from '../../storage/media-store.ts';
import { getProfile } from './users.service.ts';

export const MAX_BIO = 1000;
export const AVATAR_SIZE = 256;
export const MAX_AVATAR_BYTES = 10 * 1024 * 1024;

export interface ProfileChange {
  bio?: string;
  avatar?: Buffer;
}

/** Decodes any image sharp reads (50 Mpx at most), crops it square and stores a 256 px WebP. */
async function storeAvatar(media: MediaStore, input: Buffer): Promise<string> {
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
  const rel = contentPath('avatars', sha256Hex(out), 'webp');
  await media.put(rel, out);
  return rel;
}

export async function updateProfile(deps: Deps, media: MediaStore, viewer: Viewer, change: ProfileChange) {
  if (change.bio === undefined && change.avatar === undefined) {
    badRequest('Nothing to change: send bio and/or avatar', [{ field: 'bio', message: 'bio or avatar is required' }]);
  }
  if (change.bio !== undefined && [...change.bio].length > MAX_BIO) {
    badRequest(`field 'bio' must be at most ${MAX_BIO} characters long`, [{ field: 'bio', message: `at most ${MAX_BIO} characters` }]);
  }
  const avatarPath = change.avatar ? await storeAvatar(media, change.avatar) : undefined;
  await deps.db
    .updateTable('users')
    .set({ ...(change.bio !== undefined ? { bio: change.bio } : {}), ...(avatarPath ? { avatar_path: avatarPath } : {}) })
    .where('id', '=', viewer.id)
    .execute();
  return getProfile(deps, viewer.username);
}
