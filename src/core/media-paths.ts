/** Stored paths are relative to DATA_DIR/media; the API shows them under /media/. */
export const MEDIA_PREFIX = '/media/';
export const DEFAULT_AVATAR = '/static/default-avatar.svg';

export const mediaUrl = (stored: string | null | undefined): string => (stored ? MEDIA_PREFIX + stored : '');
export const avatarUrl = (stored: string | null | undefined): string => (stored ? MEDIA_PREFIX + stored : DEFAULT_AVATAR);

/** Content-addressed layout: originals/ab/cd/<sha256>.<ext>. */
export function contentPath(kind: 'originals' | 'thumbs' | 'previews' | 'avatars', sha256: string, ext: string): string {
  return `${kind}/${sha256.slice(0, 2)}/${sha256.slice(2, 4)}/${sha256}.${ext}`;
}
