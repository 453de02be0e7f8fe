import type { Deps } from './core/deps.ts';
import { createPostsService } from './modules/posts/post-listing.ts';
import { createSimilarService } from './modules/similar/similar.service.ts';
import { createTagsService } from './modules/tags/tags.service.ts';

/**
 * The services that keep state in memory (indexes, caches), made once per app with its
 * dependencies. Routes take the one they call; the start-up warm-up calls them too.
 */
export function createServices(deps: Deps) {
  return {
    posts: createPostsService(deps),
    tags: createTagsService(deps),
    similar: createSimilarService(deps),
  };
}

export type Services = ReturnType<typeof createServices>;
