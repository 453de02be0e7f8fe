import type { Deps, Viewer } from '../../core/deps.ts';
import type { PostDetailQuery, PostListQuery } from './posts.schemas.ts';
import { getPost } from './post-detail.ts';
import type { KnownTagDetails } from './tag-details.ts';

type Filters = Omit<PostDetailQuery, 'neighbours' | 'at'>;
/** GET /api/posts as JSON text. */
type List = (q: PostListQuery) => Promise<string>;

async function idsOf(q: PostListQuery, list: List): Promise<string[]> {
  const page = JSON.parse(await list(q)) as { posts: { id: string }[] };
  return page.posts.map((p) => p.id);
}

/** The ids on each side of `id` in the list, nearest first, read through the list's own query. */
async function around(id: string, createdAt: string, n: number, at: number | undefined, filters: Filters, list: List) {
  if (at !== undefined) {
    const offset = Math.max(0, at - n);
    const window = await idsOf({ ...filters, offset, limit: Math.min(100, at - offset + n + 1) }, list);
    const i = window.indexOf(id);
    if (i >= 0) return { before: window.slice(Math.max(0, i - n), i).reverse(), after: window.slice(i + 1, i + 1 + n) };
  }
  // No position, or the list moved: the posts uploaded just after and just before it.
  const t = Date.parse(createdAt);
  const { sortBy: _sort, dateFrom: _from, dateTo: _to, ...rest } = filters;
  // A query with its own order (q's order:) cannot take sortBy: it has no such fallback.
  if (rest.q !== undefined && /(^|[\s(])order:/i.test(rest.q)) return { before: [], after: [] };
  const [newer, older] = await Promise.all([
    idsOf({ ...rest, sortBy: 'oldest', dateFrom: new Date(t + 1).toISOString(), limit: n }, list),
    idsOf({ ...rest, sortBy: 'newest', dateTo: new Date(t - 1).toISOString(), limit: n }, list),
  ]);
  return { before: newer, after: older };
}

/** GET /api/posts/<id>, with its neighbours in a list when asked (a post gone meanwhile is left out). */
export async function getPostAndNeighbours(deps: Deps, rawId: string, viewer: Viewer | null, q: PostDetailQuery, list: List, known: KnownTagDetails) {
  const post = await getPost(deps, rawId, viewer, known);
  const { neighbours: n, at, ...filters } = q;
  if (!n) return post;
  const side = await around(post.id, post.createdAt, n, at, filters, list);
  const details = async (ids: string[]) => (await Promise.all(ids.map((id) => getPost(deps, id, viewer, known).catch(() => null)))).filter((p) => p !== null);
  return { ...post, neighbours: { before: await details(side.before), after: await details(side.after) } };
}
