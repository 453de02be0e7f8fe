import type { Deps } from './core/deps.ts';
import { deleteHeld, heldPostDetail } from './modules/approval/approval.service.ts';
import { createPostsService } from './modules/posts/posts.service.ts';
import { type EngineCore, searchEngine } from './search/engine.ts';
import { createSimilarService } from './modules/similar/similar.service.ts';
import { createTagsService } from './modules/tags/tags.service.ts';
import { TagCache } from './modules/tags/tag-cache.ts';

/**
 * The services that keep state in memory (indexes, caches), made once per app with its
 * dependencies; `engine`: the search engine's core when it is kept elsewhere (the main thread's,
 * with WORKERS > 1), else the posts service makes one. Routes take the one they call; the start-up warm-up calls them too.
 */
export function createServices(deps: Deps, engine?: EngineCore) {
  // Every tag's category and post count: the tag lists' and the posts' details' (tag-details.ts).
  const tags = new TagCache();
  const search = engine ? searchEngine(deps, engine) : undefined;
  return {
    posts: createPostsService(deps, { search, tagCache: tags, held: { detail: heldPostDetail, withdraw: deleteHeld } }),
    tags: createTagsService(deps, tags),
    similar: createSimilarService(deps),
  };
}

export type Services = ReturnType<typeof createServices>;
