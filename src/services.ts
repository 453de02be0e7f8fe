import type { Deps } from './core/deps.ts';
import { deleteHeld, heldPostDetail } from './modules/approval/approval.service.ts';
import { createPostsService } from './modules/posts/posts.service.ts';
import { createEventsService } from './modules/events/events.service.ts';
import { createWebhooksService } from './modules/webhooks/webhooks.service.ts';
import { createSavedSearchesService } from './modules/saved-searches/saved-searches.service.ts';
import { coreInMainThread, type EngineCore, searchEngine } from './search/engine.ts';
import { createSimilarService, type NearestPosts } from './modules/similar/similar.service.ts';
import { createTagsService } from './modules/tags/tags.service.ts';
import { TagCache } from './modules/tags/tag-cache.ts';

/**
 * The services that keep state in memory (indexes, caches), made once per app with its
 * dependencies. `kept`: the search engine's core and the similar-image index when they are kept
 * elsewhere (in the main thread, with WORKERS > 1), else each service makes its own. Routes take the one they call; the start-up warm-up calls them too.
 */
export function createServices(deps: Deps, kept: { searchCore?: EngineCore; similar?: NearestPosts; log?: (err: unknown, what: string) => void } = {}) {
  // Every tag's category and post count: the tag lists' and the posts' details' (tag-details.ts).
  const tags = new TagCache();
  // A core kept in the main thread is asked with a deadline, past which this thread plans by SQL.
  const search = kept.searchCore ? searchEngine(deps, coreInMainThread(deps, kept.searchCore)) : undefined;
  const posts = createPostsService(deps, { search, tagCache: tags, held: { detail: heldPostDetail, withdraw: deleteHeld } });
  return {
    posts,
    events: createEventsService(deps, posts, kept.log ?? (() => {})),
    webhooks: createWebhooksService(deps, posts, kept.log ?? (() => {})),
    savedSearches: createSavedSearchesService(deps, posts, kept.log ?? (() => {})),
    tags: createTagsService(deps, tags),
    similar: createSimilarService(deps, kept.similar),
  };
}

export type Services = ReturnType<typeof createServices>;
