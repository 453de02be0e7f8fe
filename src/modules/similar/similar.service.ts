import type { Deps } from '../../core/deps.ts';
import { AppError, badRequest, notFound } from '../../core/errors.ts';
import { imageDerivatives } from '../../media/image.ts';
import { ffmpegAvailable, posterFrame, probeVideo } from '../../media/video.ts';
import { listItems } from '../posts/posts.repo.ts';
import { parseId } from '../../core/ids.ts';
import { removeReceived, type Received, type ReceivedForm } from '../uploads/receive.ts';
import { PhashIndex } from './phash-index.ts';
import { findPostPhash } from './similar.repo.ts';

export interface SimilarQuery {
  limit: number;
  maxDistance: number;
}

/**
 * The similar-image index as the service asks it: kept in this thread, or (WORKERS > 1) in the
 * main thread for every serving thread, so that each post's hash is kept once a process.
 */
export interface NearestPosts {
  /** Posts within maxDistance bits of the hash, nearest first (then newest), with the index brought up to date first. */
  nearest(hash: string, maxDistance: number, limit: number, excludeId?: number): Promise<{ id: number; distance: number }[]>;
  /** Drops deleted posts (found missing when their rows were fetched). */
  forget(ids: number[]): Promise<void>;
}

/** The calls of NearestPosts, as another thread makes them (src/thread-calls.ts). */
export const NEAREST_CALLS = ['nearest', 'forget'] as const satisfies readonly (keyof NearestPosts)[];

/** An index of every post's perceptual hash kept in this thread, read from `db`. */
export function keptNearest(db: Deps['db']): NearestPosts {
  const index = new PhashIndex();
  return {
    nearest: async (hash, maxDistance, limit, excludeId) => {
      await index.refresh(db);
      return index.nearest(hash, maxDistance, limit, excludeId);
    },
    forget: async (ids) => index.forget(ids),
  };
}

async function ranked(deps: Deps, index: NearestPosts, hash: string, q: SimilarQuery, excludeId?: number) {
  for (;;) {
    const near = await index.nearest(hash, q.maxDistance, q.limit, excludeId);
    const items = await listItems(
      deps.db,
      near.map((n) => n.id),
      deps.config,
    );
    if (items.length < near.length) {
      // Some were deleted since they were indexed: forget them and look again, so they do not
      // take places of the limit that posts further away should fill.
      const present = new Set(items.map((p) => Number(p.id)));
      await index.forget(near.filter((n) => !present.has(n.id)).map((n) => n.id));
      continue;
    }
    const distance = new Map(near.map((n) => [n.id, n.distance]));
    return { hash, posts: items.map((p) => ({ ...p, distance: distance.get(Number(p.id))! })) };
  }
}

export async function similarToPost(deps: Deps, index: NearestPosts, rawId: string, q: SimilarQuery) {
  const id = parseId(rawId, 'Post');
  const post = await findPostPhash(deps.db, id);
  if (!post) return notFound('Post', rawId);
  if (!post.phash) return { hash: '', posts: [] };
  return ranked(deps, index, post.phash, q, id);
}

async function hashOf(deps: Deps, file: Received): Promise<string> {
  const limits = deps.config.uploads;
  if (file.type.kind === 'image') return (await imageDerivatives(file.tmpPath, limits.maxImagePixels)).phash;
  const tools = { ffmpeg: limits.ffmpegPath, ffprobe: limits.ffprobePath };
  if (!(await ffmpegAvailable(tools))) throw new AppError(415, 'Searching by video needs ffmpeg on the server, and it is not installed');
  const v = await probeVideo(tools, file.tmpPath);
  return (await imageDerivatives(await posterFrame(tools, file.tmpPath, v.duration), limits.maxImagePixels)).phash;
}

/**
 * Ranks posts by likeness to an uploaded file (similar.routes.ts reads it); nothing is stored, and
 * the form's temporary file is removed whatever happens.
 */
export async function similarToUpload(deps: Deps, index: NearestPosts, form: ReceivedForm, q: SimilarQuery) {
  try {
    const file = form.files[0];
    if (!file) return badRequest("field 'file' is required", [{ field: 'file', message: 'required' }]);
    return await ranked(deps, index, await hashOf(deps, file), q);
  } finally {
    await removeReceived(form);
  }
}

/** Similar-image search over an index of perceptual hashes (default: one kept here); buildApp makes one. */
export function createSimilarService(deps: Deps, index: NearestPosts = keptNearest(deps.db)) {
  return {
    toPost: (rawId: string, q: SimilarQuery) => similarToPost(deps, index, rawId, q),
    toUpload: (form: ReceivedForm, q: SimilarQuery) => similarToUpload(deps, index, form, q),
  };
}

export type SimilarService = ReturnType<typeof createSimilarService>;
