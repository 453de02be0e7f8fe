/**
 * The post list as JSON: a PostList response written around the items the database stores for
 * each post (db/schema/list-item.ts), key for key the PostList schema, so the route sends it as it
 * is; and the renderers that make a page of the search into it.
 */
import type { Deps } from '../../core/deps.ts';
import type { Wildcard } from '../../search/expr.ts';
import { ORDERS, sameOrder } from '../../search/expr.ts';
import type { PageRenderer } from '../../search/engine.ts';
import type { SearchResult } from '../../search/search.ts';
import type { NewestWindow } from './newest-window.ts';
import * as repo from './posts.repo.ts';

/**
 * A PostList response as JSON text around items the database wrote (db/schema/list-item.ts), key
 * for key the PostList schema: the route sends it as it is. `count.hidden`, when given (GET
 * /api/posts), is written as hiddenPosts.
 */
export function postListJson(items: repo.Items, ...rest: Parameters<typeof postListRest>): string {
  return `{"posts":${items.json}${postListRest(...rest)}`;
}

/** What a PostList response holds after its posts, from the comma on (postListJson). */
export function postListRest(
  count: { total: number; estimated: boolean; hidden?: number },
  offset: number,
  limit: number,
  cursor: string | null,
  wildcards: Wildcard[] = [],
): string {
  return (
    `,"totalPosts":${count.total},"totalIsEstimate":${count.estimated},` +
    `"currentPage":${Math.floor(offset / limit) + 1},"totalPages":${Math.ceil(count.total / limit)},"nextCursor":${cursor === null ? 'null' : JSON.stringify(cursor)}` +
    `${count.hidden === undefined ? '' : `,"hiddenPosts":${count.hidden}`}` +
    `${wildcards.length ? `,"wildcards":${JSON.stringify(wildcards)}` : ''}}`
  );
}

/** What a page of GET /api/posts says after its posts (`found`: those it shows). */
function listRest(result: SearchResult, found: number[], offset: number, limit: number): string {
  const last = found[found.length - 1];
  const cursor = sameOrder(result.order, ORDERS.newest) && found.length === limit && last !== undefined ? String(last) : null;
  return postListRest({ total: result.total, estimated: result.estimated, hidden: result.hidden }, offset, limit, cursor, result.wildcards);
}

/** GET /api/posts's JSON text: the page's stored items, read with the data version. */
export const listJson =
  ({ db, config }: Pick<Deps, 'db' | 'config'>): PageRenderer<string> =>
  async (result, offset, limit) => {
    const items = await repo.itemsByIds(db, result.ids, config);
    return { value: `{"posts":${items.json}${listRest(result, items.ids, offset, limit)}`, version: items.version };
  };

/**
 * GET /api/posts's answer: as bytes from the window when it holds the page's posts (the first
 * pages of the newest list), else as listJson's text.
 */
export const listBody = (deps: Pick<Deps, 'db' | 'config'>, window: NewestWindow, newestId: () => number): PageRenderer<string | Buffer> => {
  const text = listJson(deps);
  return async (result, offset, limit) => {
    const kept = await window.items(deps.db, result.ids, newestId(), deps.config);
    if (!kept) return text(result, offset, limit);
    kept.writer.json(listRest(result, kept.ids, offset, limit));
    return { value: kept.writer.buffer.subarray(0, kept.writer.at), version: kept.version };
  };
};
