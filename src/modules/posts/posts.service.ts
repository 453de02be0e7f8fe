import type { Deps, Viewer } from '../../core/deps.ts';
import { AppError } from '../../core/errors.ts';
import { toId } from '../../core/ids.ts';
import { createSearchEngine, type SearchEngine } from '../../search/engine.ts';
import { listFilters } from '../preferences/preferences.service.ts';
import type { ListFilters } from '../../search/filters.ts';
import { TagCache } from '../tags/tag-cache.ts';
import type { HeldPosts } from './held-posts.ts';
import { NewestWindow } from './newest-window.ts';
import { getPostBytes } from './post-detail.ts';
import { listBody, listJson } from './post-list-json.ts';
import { getPostAndNeighbours } from './post-neighbours.ts';
import type { PostDetailQuery, PostListQuery } from './posts.schemas.ts';
import { tagDetailsFrom } from './tag-details.ts';

/**
 * The posts service of one process: the post list (a page of the search engine, written as the
 * list's JSON, from the newest window's bytes when it holds the page) and a post's page. buildApp
 * makes one (src/services.ts); every route and the start-up warm-up go through it.
 * `search`: the engine the list asks (tests hand in one with sets kept otherwise than by default);
 * `windowPosts`: the newest window's size; `tagCache`: the tag list's cache, shared with the tags
 * service; `held`: the uploads waiting for approval, which a post's page and its delete fall back to.
 */
export function createPostsService(deps: Deps, kept: { search?: SearchEngine; windowPosts?: number; tagCache?: TagCache; held?: HeldPosts } = {}) {
  const search = kept.search ?? createSearchEngine(deps);
  const newest = new NewestWindow(search.countsOf, kept.windowPosts);
  const tagDetails = tagDetailsFrom(kept.tagCache ?? new TagCache());
  const json = listJson(deps);
  const body = listBody(deps, newest, search.newestId);
  /** The list's JSON text, with no viewer's filters. */
  const list = (q: PostListQuery): Promise<string> => search.page({ query: q, render: json });
  return {
    /** What deletes a post that waits for approval (DELETE /api/posts/<id> on one): none without the approval module. */
    held: kept.held ?? null,
    list,
    /** GET /api/posts's JSON, as text or bytes, for this viewer (null: a visitor): with their filters, which are read afresh each time. */
    listFor: async (viewer: Viewer | null, q: PostListQuery): Promise<string | Buffer> =>
      search.page({ query: q, render: body, filters: await listFilters(deps, viewer) }),
    /** The ids of a page of the list with these filters (the live streams' test of new posts against a query). */
    matching: (filters: ListFilters | undefined, query: PostListQuery): Promise<number[]> =>
      search.page({ query, filters, render: async (result) => ({ value: result.ids }) }),
    /** A page of the list made into what the request's renderer makes of it (the Danbooru API's posts). */
    page: search.page,
    /**
     * GET /api/posts/<id>, with its neighbours when asked: in the list as this viewer sees it (their
     * filters, read only when neighbours are asked for). A post waiting for approval goes to its
     * uploader and the moderators (no neighbours: it is in no list).
     */
    get: async (id: string, viewer: Viewer | null, q: PostDetailQuery) => {
      try {
        // Alone, it is written as bytes; with its neighbours, as objects the route's serializer writes.
        if (!q.neighbours) return await getPostBytes(deps, id, viewer, tagDetails);
        const filters = await listFilters(deps, viewer);
        return await getPostAndNeighbours(deps, id, viewer, q, (query) => search.page({ query, render: json, filters }), tagDetails);
      } catch (err) {
        const held = kept.held && err instanceof AppError && err.status === 404 && toId(id) !== null ? await kept.held.detail(deps, toId(id)!, viewer) : null;
        if (held) return held;
        throw err;
      }
    },
    /** Builds what the search keeps, so that the first requests do not wait for it. */
    warm: (): Promise<void> => search.warm(),
    /** Bytes the search's kept sets hold, by kind (its core's, wherever that is). */
    keptBytes: (): Promise<Record<string, number>> => search.memory(),
  };
}

export type PostsService = ReturnType<typeof createPostsService>;
