import type { Config } from '../config.ts';

/** Stored paths are relative to the media store; without MEDIA_PUBLIC_URL the API shows them under /media/. */
export const MEDIA_PREFIX = '/media/';
export const DEFAULT_AVATAR = '/static/default-avatar.svg';

/** Where clients fetch media: MEDIA_PUBLIC_URL (a CDN or the bucket) when set, else this server's /media/. */
export const mediaBase = (config: Pick<Config, 'mediaPublicUrl'>): string => config.mediaPublicUrl || MEDIA_PREFIX;

export const mediaUrl = (config: Pick<Config, 'mediaPublicUrl'>, stored: string | null | undefined): string => (stored ? mediaBase(config) + stored : '');
export const avatarUrl = (config: Pick<Config, 'mediaPublicUrl'>, stored: string | null | undefined): string =>
  stored ? mediaBase(config) + stored : DEFAULT_AVATAR;

const STORED_ITEM_URLS = /,"(thumbnail|imageUrl)":"\/media\//g;

/**
 * List items are stored as JSON text with `/media/` URLs (db/schema/list-item.ts). With a public
 * base they are rewritten on the way out: `,"thumbnail":"` can only be the key, as a quote inside
 * a JSON string is always escaped.
 */
export function publicItemJson(config: Pick<Config, 'mediaPublicUrl'>, json: string): string {
  if (!config.mediaPublicUrl) return json;
  const base = JSON.stringify(config.mediaPublicUrl).slice(1, -1);
  return json.replace(STORED_ITEM_URLS, (_m, key: string) => `,"${key}":"${base}`);
}

/** Content-addressed layout: originals/ab/cd/<sha256>.<ext>. */
export function contentPath(kind: 'originals' | 'thumbs' | 'previews' | 'avatars', sha256: string, ext: string): string {
  return `${kind}/${sha256.slice(0, 2)}/${sha256.slice(2, 4)}/${sha256}.${ext}`;
}
