import type { Static } from 'typebox';
import type { Deps, Viewer } from '../../core/deps.ts';
import type { PostDetail } from './posts.schemas.ts';

/**
 * The uploads waiting for approval, as the posts' routes meet them: GET /api/posts/<id> shows one
 * to its uploader and the moderators, DELETE withdraws (or rejects) one. The approval module
 * answers (src/services.ts hands it over), so posts know nothing of how approval works.
 */
export interface HeldPosts {
  /** The page of held post `id` as `viewer` may see it, or null (not held, or not theirs to see). */
  detail(deps: Deps, id: number, viewer: Viewer | null): Promise<(Static<typeof PostDetail> & { pending: true }) | null>;
  /** Withdraws held post `id` (its uploader) or rejects it (a moderator); 404 when there is none. */
  withdraw(deps: Deps, viewer: Viewer, id: number, rawId: string): Promise<{ message: string }>;
}
