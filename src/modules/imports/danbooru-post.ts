import type { Rating } from '../../core/schemas.ts';
import type { TagCategory } from '../../core/tag-categories.ts';
import type { ImportItem, ImportTag } from './import-item.ts';

/**
 * A post of Danbooru's /posts.json (or of a board speaking its API) read into the fields of an
 * ImportItem. Every field is checked for its type: another board may leave any of them out.
 */

export type Json = Record<string, unknown>;

export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const int = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
export const time = (v: unknown): number | null => {
  const ms = typeof v === 'string' ? Date.parse(v) : Number.NaN;
  return Number.isNaN(ms) ? null : ms;
};
/** A positive integer id (Danbooru's ids), else null. */
export const idOf = (v: unknown): number | null => (typeof v === 'number' && Number.isSafeInteger(v) && v > 0 ? v : null);

/** Danbooru's rating letters: g(eneral) and s(ensitive) are safe here, q(uestionable) sketchy, e(xplicit) unsafe. */
const RATINGS: Record<string, Rating> = { g: 'safe', s: 'safe', q: 'sketchy', e: 'unsafe' };

const CATEGORIES: TagCategory[] = ['general', 'artist', 'copyright', 'character', 'meta'];

const words = (v: unknown) => (typeof v === 'string' ? v.split(/\s+/).filter(Boolean) : []);

/** The post's tags with their categories; a board that gives only `tag_string` gives tags of unknown category. */
export function tagsOf(post: Json): ImportTag[] {
  const split = CATEGORIES.some((c) => typeof post[`tag_string_${c}`] === 'string');
  if (!split) return words(post.tag_string).map((name) => ({ name, category: null }));
  return CATEGORIES.flatMap((category) => words(post[`tag_string_${category}`]).map((name) => ({ name, category })));
}

/** A source only when it is a web address that fits our column; Danbooru also keeps free text there ("Pixiv", a file name). */
function sourceOf(v: unknown): string | null {
  const s = text(v)?.trim();
  return s && s.length <= 1024 && /^https?:\/\/\S+$/i.test(s) ? s : null;
}

function uploaderOf(post: Json): string | null {
  return text(post.uploader_name) ?? (isObject(post.uploader) ? text(post.uploader.name) : null);
}

const md5Of = (v: unknown) => (typeof v === 'string' && /^[0-9a-f]{32}$/i.test(v) ? v.toLowerCase() : null);

/** What to download for a post, and the MD5 its bytes must have (null: nothing to check them against). */
export interface PostFile {
  url: URL;
  md5: string | null;
  ext: string;
}

/**
 * The post's file, its address made absolute against the board; null for a post whose file the
 * board does not show (restricted to higher levels, or deleted). An ugoira (a zip of frames,
 * which we cannot show) is taken as the WebM Danbooru renders of it, as gallery-dl does; the post's
 * md5 is the zip's, so the WebM is not checked against it.
 */
export function fileOf(post: Json, base: URL): PostFile | null {
  const raw = text(post.file_url);
  if (!raw) return null;
  const ext = (text(post.file_ext) ?? /\.(\w+)(?:[?#]|$)/.exec(raw)?.[1] ?? 'bin').toLowerCase();
  const webm = text(post.large_file_url);
  const resolve = (u: string) => new URL(u, base.href.replace(/\/*$/, '/'));
  try {
    if (ext === 'zip' && webm?.endsWith('.webm')) return { url: resolve(webm), md5: null, ext: 'webm' };
    return { url: resolve(raw), md5: md5Of(post.md5), ext: /^\w{1,8}$/.test(ext) ? ext : 'bin' };
  } catch {
    return null;
  }
}

/**
 * Whether the post may have comments: a count when the board shows one; Danbooru shows none but
 * sets last_commented_at; a board showing neither is asked.
 */
export function mayHaveComments(post: Json): boolean {
  if (typeof post.comment_count === 'number') return post.comment_count > 0;
  if ('last_commented_at' in post) return post.last_commented_at !== null && post.last_commented_at !== undefined;
  return true;
}

/** The post's fields as an ImportItem, but for its file and comments. */
export function itemFields(origin: string, id: number, post: Json): Omit<ImportItem, 'file' | 'temporary' | 'md5' | 'comments'> {
  const parent = idOf(post.parent_id);
  return {
    origin,
    originId: String(id),
    label: `${origin} #${id}`,
    tags: tagsOf(post),
    rating: RATINGS[String(post.rating)] ?? null,
    source: sourceOf(post.source),
    title: null,
    description: null,
    createdAt: time(post.created_at),
    parentOriginId: parent === null ? null : String(parent),
    pools: [],
    score: int(post.score),
    favCount: int(post.fav_count),
    uploader: uploaderOf(post),
  };
}
