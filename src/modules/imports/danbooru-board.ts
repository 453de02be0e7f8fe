import type { TagCategory } from '../../core/tag-categories.ts';
import type { DanbooruHttp } from './danbooru-http.ts';
import { numberedPages } from './danbooru-lists.ts';
import { idOf, isObject, type Json } from './danbooru-post.ts';
import type { BoardData } from './import-item.ts';

/**
 * The board-wide part of a Danbooru import, read after the posts: what was seen on the imported
 * posts decides what is kept. Each list is read in full pages of 1000 (Danbooru has some 50,000
 * aliases, 40,000 implications and 30,000 pools: tens of requests each), so the requests stay
 * bounded whatever was imported. A board without an endpoint (404) gives an empty list.
 */

/** What the imported posts showed: their tags with the category each came with, and their ids. */
export interface Seen {
  tags: Map<string, TagCategory | null>;
  posts: Set<string>;
}

export interface BoardOptions {
  origin: string;
  /** A --tags import keeps only the relations that touch a tag of its posts; a whole-board import keeps all. */
  filtered: boolean;
  signal?: AbortSignal;
}

const PAGE = 1000;
/** Names in one `search[title_space]`: a query string well under the 8 KB servers take. */
const TITLES_A_REQUEST = 100;
const TITLE_CHARS_A_REQUEST = 3000;

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** `names` cut into lists short enough for one query string. */
function batches(names: string[]): string[][] {
  const out: string[][] = [];
  let batch: string[] = [];
  let chars = 0;
  for (const name of names) {
    const cost = encodeURIComponent(name).length + 1;
    if (batch.length > 0 && (batch.length >= TITLES_A_REQUEST || chars + cost > TITLE_CHARS_A_REQUEST)) {
      out.push(batch);
      batch = [];
      chars = 0;
    }
    batch.push(name);
    chars += cost;
  }
  if (batch.length > 0) out.push(batch);
  return out;
}

/**
 * The wiki text of the seen tags. A whole-board import pages through every wiki page (about 200
 * requests on Danbooru). A --tags import asks for its tags' pages by title instead, a hundred a
 * request (`search[title_space]`: Danbooru's names have no spaces): one request per hundred tags
 * rather than one per tag, or than the whole wiki for a search of twenty posts. A board that
 * answers with other titles does not know that search: its whole wiki is paged through instead.
 */
async function wikiTexts(http: DanbooruHttp, seen: Seen, o: BoardOptions): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  const take = (page: Json) => {
    const title = str(page.title);
    const body = str(page.body);
    if (title && body && page.is_deleted !== true && seen.tags.has(title)) texts.set(title, body);
  };
  const everyPage = async () => {
    for await (const page of numberedPages(http, '/wiki_pages.json', {}, PAGE, o.signal)) page.forEach(take);
    return texts;
  };
  if (!o.filtered) return everyPage();
  const names = [...seen.tags.keys()].filter((n) => !/\s/.test(n));
  for (const batch of batches(names)) {
    const answer = await http.json('/wiki_pages.json', { 'search[title_space]': batch.join(' '), limit: PAGE }, o.signal);
    if (answer === null) break;
    const pages = Array.isArray(answer) ? answer.filter(isObject) : [];
    const asked = new Set(batch);
    if (pages.some((p) => !asked.has(String(p.title)))) return everyPage();
    pages.forEach(take);
  }
  return texts;
}

/** Active aliases or implications (`path`), as antecedent -> consequent. */
async function relations(http: DanbooruHttp, path: string, seen: Seen, o: BoardOptions) {
  const out: { from: string; to: string }[] = [];
  for await (const page of numberedPages(http, path, { 'search[status]': 'active' }, PAGE, o.signal)) {
    for (const r of page) {
      const from = str(r.antecedent_name);
      const to = str(r.consequent_name);
      // The status is checked again: a board may not know the search.
      if (!from || !to || (r.status !== undefined && r.status !== 'active')) continue;
      if (!o.filtered || seen.tags.has(from) || seen.tags.has(to)) out.push({ from, to });
    }
  }
  return out;
}

/** Pools holding at least one imported post, with all their posts in order (the writer links those it has). */
async function pools(http: DanbooruHttp, seen: Seen, o: BoardOptions): Promise<BoardData['pools']> {
  const out: BoardData['pools'] = [];
  for await (const page of numberedPages(http, '/pools.json', {}, PAGE, o.signal)) {
    for (const p of page) {
      const ids = Array.isArray(p.post_ids) ? p.post_ids.map(idOf).filter((id): id is number => id !== null) : [];
      const postOriginIds = ids.map(String);
      if (p.is_deleted === true || !postOriginIds.some((id) => seen.posts.has(id))) continue;
      out.push({
        origin: o.origin,
        key: String(p.id),
        // Danbooru keeps underscores for spaces in pool names; gallery-dl shows them as spaces, and so do we.
        name: (str(p.name) ?? `pool ${p.id}`).replaceAll('_', ' '),
        description: str(p.description),
        postOriginIds,
      });
    }
  }
  return out;
}

export async function readBoard(http: DanbooruHttp, seen: Seen, o: BoardOptions): Promise<BoardData> {
  const [texts, aliases, implications, poolList] = await Promise.all([
    wikiTexts(http, seen, o),
    relations(http, '/tag_aliases.json', seen, o),
    relations(http, '/tag_implications.json', seen, o),
    pools(http, seen, o),
  ]);
  const tags = [...seen.tags].map(([name, category]) => ({ name, category, description: texts.get(name) ?? null }));
  return { tags, aliases, implications, pools: poolList };
}
