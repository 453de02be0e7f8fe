import type sharpModule from 'sharp';

let loaded: Promise<typeof sharpModule> | undefined;

/**
 * sharp, loaded on first use: libvips adds ~20 MB to a process, and most server processes only
 * ever read (uploads and avatars are the only images it decodes). Each image is decoded once,
 * so libvips keeps no operation cache (by default up to 50 MB a process) and works each image on
 * one thread: a server runs one process a core already.
 */
export function loadSharp(): Promise<typeof sharpModule> {
  loaded ??= import('sharp').then(({ default: sharp }) => {
    sharp.cache(false);
    sharp.concurrency(1);
    return sharp;
  });
  return loaded;
}
