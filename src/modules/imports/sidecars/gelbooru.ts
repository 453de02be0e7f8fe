import type { TagCategory } from '../../../core/tag-categories.ts';
import type { ImportItem } from '../import-item.ts';
import { blankItem, categorized, idText, type Json, type Media, md5, num, poolRef, rating, source, text, typedTags, words } from './fields.ts';

/**
 * gallery-dl's metadata of a Gelbooru post: gelbooru.com's JSON API post, or a Gelbooru 0.2
 * instance's XML post attributes (rule34, safebooru, tbib, ...: every value a string), plus
 * `category`; with the `tags` option `tags_<kind>` strings read from the post's page; from the
 * pool extractor the pool's id and name (`pool`, `pool_name`; no place in it).
 */

const KINDS: Record<string, TagCategory> = {
  general: 'general',
  artist: 'artist',
  copyright: 'copyright',
  character: 'character',
  metadata: 'meta',
  meta: 'meta',
};

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Gelbooru's `created_at`, "Sat Jan 01 12:34:56 -0500 2022", as epoch ms. */
export function gelbooruTime(v: unknown): number | null {
  const m = typeof v === 'string' ? v.trim().match(/^\w{3} (\w{3}) (\d{1,2}) (\d{2}):(\d{2}):(\d{2}) ([+-])(\d{2})(\d{2}) (\d{4})$/) : null;
  const month = m ? MONTHS.indexOf(m[1]) : -1;
  if (!m || month < 0) return null;
  const offset = (m[6] === '-' ? -1 : 1) * (Number(m[7]) * 60 + Number(m[8])) * 60_000;
  return Date.UTC(Number(m[9]), month, Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5])) - offset;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** gelbooru.com's JSON API sends HTML-escaped text ("another&#039;s_head"); the XML's attributes come unescaped, and stay so. */
function unescapeHtml(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  return v.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, e: string) => {
    if (e[0] !== '#') return ENTITIES[e.toLowerCase()] ?? whole;
    const code = e[1] === 'x' || e[1] === 'X' ? Number.parseInt(e.slice(2), 16) : Number(e.slice(1));
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

export function readGelbooru(data: Json, media: Media): ImportItem | string {
  const id = idText(data.id);
  if (!id) return 'the Gelbooru sidecar has no post id';
  const item = blankItem(media, text(data.category) ?? 'gelbooru', id);
  item.md5 = md5(data.md5);
  item.tags = categorized(
    words(unescapeHtml(data.tags)),
    typedTags(data, KINDS, (v) => words(unescapeHtml(v))),
  );
  item.rating = rating(data.rating);
  item.source = source(unescapeHtml(data.source));
  item.title = text(unescapeHtml(data.title));
  item.createdAt = gelbooruTime(data.created_at);
  item.parentOriginId = idText(data.parent_id);
  item.score = num(data.score);
  item.uploader = text(unescapeHtml(data.owner));
  const pool = poolRef(data.pool, data.pool_name);
  if (pool) item.pools.push(pool);
  return item;
}
