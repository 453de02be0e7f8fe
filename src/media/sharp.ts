import type sharpModule from 'sharp';

/**
 * sharp, loaded on first use: libvips adds ~20 MB to a process, and most server processes only
 * ever read (uploads and avatars are the only images it decodes).
 */
export async function loadSharp(): Promise<typeof sharpModule> {
  return (await import('sharp')).default;
}
