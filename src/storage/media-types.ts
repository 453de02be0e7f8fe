/** The content types of what the board stores, by extension (as @fastify/static sends them from disk). */
const TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  mp4: 'video/mp4',
  webm: 'video/webm',
};

export function contentTypeOf(rel: string): string {
  return TYPES[rel.slice(rel.lastIndexOf('.') + 1).toLowerCase()] ?? 'application/octet-stream';
}

/** Media are named by their content, so a URL's bytes never change. */
export const MEDIA_CACHE_CONTROL = 'public, max-age=31536000, immutable';
