import type { Deps, Viewer } from '../../core/deps.ts';
import { CountCache } from './count-cache.ts';
import { NewestOrder } from './newest-order.ts';
import { getPostAndNeighbours } from './post-neighbours.ts';
import type { PostDetailQuery, PostListQuery } from './posts.schemas.ts';
import { listPosts, type ListMemory } from './posts.service.ts';
import { TagNames } from './tag-lookup-cache.ts';
import { TagSets } from './tag-sets.ts';
import { TermWords } from './term-search.ts';
import { WordSets } from './title-word-sets.ts';

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
  return {
    /** GET /api/posts as JSON text. */
    list: (q: PostListQuery) => listPosts(deps, q, memory),
    /** GET /api/posts/<id>, with its neighbours when asked. */
    get: (id: string, viewer: Viewer | null, q: PostDetailQuery) => getPostAndNeighbours(deps, id, viewer, q, memory),
    /** Builds the newest order a first deep page or date count would wait for. */
    warm: () => listPosts(deps, { offset: 10000, limit: 1 }, memory),
  };
}

export type PostsService = ReturnType<typeof createPostsService>;
