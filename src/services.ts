import type { Deps } from './core/deps.ts';
import { deleteHeld, heldPostDetail } from './modules/approval/approval.service.ts';
import { createPostsService } from './modules/posts/posts.service.ts';
import { createSimilarService } from './modules/similar/similar.service.ts';
import { createTagsService } from './modules/tags/tags.service.ts';
import { TagCache } from './modules/tags/tag-cache.ts';

/**
 * The services that keep state in memory (indexes, caches), made once per app with its
 * dependencies. Routes take the one they call; the start-up warm-up calls them too.
 */
export function createServices(deps: Deps) {
  // Every tag's category and post count: the tag lists' and the posts' details' (tag-details.ts).
  const tags = new TagCache();
  return {
    posts: createPostsService(deps, { tagCache: tags, held: { detail: heldPostDetail, withdraw: deleteHeld } }),
    tags: createTagsService(deps, tags),
    similar: createSimilarService(deps),
  };
}

export type Services = ReturnType<typeof createServices>;
