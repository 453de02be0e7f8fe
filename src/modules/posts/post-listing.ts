import type { Deps, Viewer } from '../../core/deps.ts';
import { counter } from '../../db/counters.ts';
import { KindSets, RatingSets, UploaderSets } from './column-sets.ts';
import { NewestOrder } from './newest-order.ts';
import { PostNumbers } from './post-numbers.ts';
import { getPostAndNeighbours } from './post-neighbours.ts';
import { getPostBytes } from './posts.service.ts';
import { listBody, listBySearch, listJson, type PageRenderer } from './post-search.ts';
import { NewestWindow } from './newest-window.ts';
import type { PostDetailQuery, PostListQuery } from './posts.schemas.ts';
import { type TagLookup, TagNames } from './tag-lookup-cache.ts';
import { TagSets } from './tag-sets.ts';
import { TermWords } from './title-terms.ts';
import { WordSets } from './title-word-sets.ts';
import { VersionedMap } from './versioned-map.ts';
import { KeptHeads, KeptTotals } from '../../search/totals.ts';
import { AppError } from '../../core/errors.ts';
import { toId } from '../../core/ids.ts';
import type { HeldPosts } from './held-posts.ts';
import type { ListFilters } from '../../search/filters.ts';
import { listFilters } from '../preferences/preferences.service.ts';
import { UserIds } from '../users/user-names.ts';
import { TagCache } from '../tags/tag-cache.ts';
import { tagDetailsFrom } from './tag-details.ts';

/**
 * The post list and detail of one process, with the in-memory indexes the search reads (the
 * newest order; the sets of tags, title words, ratings, kinds and uploaders; the counts; tag,
 * wildcard and title-word lookups). buildApp makes one; every route and the start-up warm-up go
 * through it, so the state has one owner. `kept`: tag or word sets, or a newest window, kept otherwise than by default (tests); the tag list's cache, shared with the tags service (createServices).
 * `held`: the uploads waiting for approval, which a post's page and its delete fall back to (createServices).
 */
export function createPostsService(
  deps: Deps,
  kept: { tagSets?: TagSets; wordSets?: WordSets; windowPosts?: number; tagCache?: TagCache; held?: HeldPosts } = {},
) {
  const order = new NewestOrder();
  const tagSets = kept.tagSets ?? new TagSets();
  const wordSets = kept.wordSets ?? new WordSets();
  const tags = new TagNames();
  const ratings = new RatingSets();
  const kinds = new KindSets();
  const uploaders = new UploaderSets();
  const numbers = new PostNumbers();
  const totals = new KeptTotals();
  const heads = new KeptHeads(1_000, 3);
  const wildcards = new VersionedMap<{ id: number; name: string }[]>(2_000);
  const words = new TermWords();
  const userIds = new UserIds();
  const newest = new NewestWindow(numbers, kept.windowPosts);
  const tagDetails = tagDetailsFrom(kept.tagCache ?? new TagCache());
  /** The data version this process saw last. */
  const seen: { version?: number } = {};
  /**
   * A page of GET /api/posts's list (every list, with `q` or without) through the search module, at
   * one data version, made into what `render` makes of it. The version this process saw last stands
   * in for a read of it: the statement that reads the page's rows reads it too, and if it moved, the
   * search runs again at the new one. Without rows to read, the version is read at the end.
   * `filters`: a viewer's own (GET /api/posts); other readers of the list have none.
   */
  const page = async <T>(q: PostListQuery, render: PageRenderer<T>, filters?: ListFilters): Promise<T> => {
    const at = (version: number) => {
      const tagsNamed: TagLookup = (names) => tags.lookup(deps.db, names, async () => version);
      return listBySearch(
        deps,
        { ...q, q: q.q ?? '' },
        tagsNamed,
        render,
        { tags: tagSets, ratings, kinds, uploaders, words: wordSets, posts: order, numbers, totals, heads, version },
        { wildcards, words, version, userIds },
        filters,
      );
    };
    const assumed = seen.version ?? (await counter(deps.db, 'version'));
    let result = await at(assumed);
    const now = result.version ?? (await counter(deps.db, 'version'));
    if (now !== assumed) result = await at(now);
    seen.version = Math.max(seen.version ?? -1, now);
    return result.value;
  };
  const json = listJson(deps);
  const body = listBody(deps, newest, () => order.newestId);
  /** The list's JSON text, with no viewer's filters. */
  const list = (q: PostListQuery): Promise<string> => page(q, json);
  return {
    /** What deletes a post that waits for approval (DELETE /api/posts/<id> on one): none without the approval module. */
    held: kept.held ?? null,
    list,
    /** GET /api/posts's JSON, as text or bytes, for this viewer (null: a visitor): with their filters, which are read afresh each time. */
    listFor: async (viewer: Viewer | null, q: PostListQuery): Promise<string | Buffer> => page(q, body, await listFilters(deps, viewer)),
    page,
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
        return await getPostAndNeighbours(deps, id, viewer, q, (list) => page(list, json, filters), tagDetails);
      } catch (err) {
        const held = kept.held && err instanceof AppError && err.status === 404 && toId(id) !== null ? await kept.held.detail(deps, toId(id)!, viewer) : null;
        if (held) return held;
        throw err;
      }
    },
    /** Builds the newest order and the sets a first deep page would wait for, and the counts a search by likes would. */
    warm: async () => {
      await list({ offset: 10000, limit: 1 });
      await numbers.current(deps.db, order.newestId);
    },
  };
}

export type PostsService = ReturnType<typeof createPostsService>;
