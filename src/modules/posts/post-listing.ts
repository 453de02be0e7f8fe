import type { Deps, Viewer } from '../../core/deps.ts';
import { counter } from '../../db/counters.ts';
import { KindSets, RatingSets, UploaderSets } from './column-sets.ts';
import { CountCache } from './count-cache.ts';
import { NewestOrder } from './newest-order.ts';
import { PostNumbers } from './post-numbers.ts';
import { getPostAndNeighbours } from './post-neighbours.ts';
import { listBySearch } from './post-search.ts';
import type { PostDetailQuery, PostListQuery } from './posts.schemas.ts';
import { listPosts, type ListMemory } from './posts.service.ts';
import { type TagLookup, TagNames } from './tag-lookup-cache.ts';
import { TagSets } from './tag-sets.ts';
import { TermWords } from './term-search.ts';
import { WordSets } from './title-word-sets.ts';
import { VersionedMap } from './versioned-map.ts';

/**
 * The post list and detail of one process, with the in-memory indexes they read (the newest
 * order, tag and title-word sets, counts, tag and term lookups). buildApp makes one; every
 * route and the start-up warm-up go through it, so the state has one owner.
 */
export function createPostsService(deps: Deps) {
  const memory: ListMemory = {
    order: new NewestOrder(),
    counts: new CountCache(),
    tagSets: new TagSets(),
    words: new TermWords(),
    wordSets: new WordSets(),
    tags: new TagNames(),
    seen: {},
  };
  const wildcards = new VersionedMap<{ id: number; name: string }[]>(2_000);
  const ratings = new RatingSets();
  const kinds = new KindSets();
  const uploaders = new UploaderSets();
  const numbers = new PostNumbers();
  /**
   * GET /api/posts with `q`: through the search module, at one data version. As for the list
   * without `q` (listPosts), the version this process saw last stands in for a read of it: the
   * statement that reads the page's items reads it too, and if it moved, the search runs again
   * at the new one. Without items to read, the version is read at the end.
   */
  const search = async (q: PostListQuery & { q: string }): Promise<string> => {
    const seen = memory.seen!;
    const at = (version: number) => {
      const tagsNamed: TagLookup = (names) => memory.tags!.lookup(deps.db, names, async () => version);
      return listBySearch(
        deps,
        q,
        tagsNamed,
        { tags: memory.tagSets!, ratings, kinds, uploaders, posts: memory.order!, numbers, version },
        { map: wildcards, version },
      );
    };
    const assumed = seen.version ?? (await counter(deps.db, 'version'));
    let page = await at(assumed);
    const now = page.version ?? (await counter(deps.db, 'version'));
    if (now !== assumed) page = await at(now);
    seen.version = Math.max(seen.version ?? -1, now);
    return page.json;
  };
  /** GET /api/posts as JSON text. */
  const list = (q: PostListQuery) => (q.q === undefined ? listPosts(deps, q, memory) : search({ ...q, q: q.q }));
  return {
    list,
    /** GET /api/posts/<id>, with its neighbours when asked. */
    get: (id: string, viewer: Viewer | null, q: PostDetailQuery) => getPostAndNeighbours(deps, id, viewer, q, list),
    /** Builds the newest order a first deep page or date count would wait for, and the counts a search by likes would. */
    warm: async () => {
      await listPosts(deps, { offset: 10000, limit: 1 }, memory);
      await numbers.current(deps.db, memory.order!.newestId);
    },
  };
}

export type PostsService = ReturnType<typeof createPostsService>;
