import type { Rating } from '../../../core/schemas.ts';
import { MAX_SOURCE } from '../../posts/post-family.ts';
import type { TagCategory } from '../../../core/tag-categories.ts';
import type { ImportItem, ImportPoolRef, ImportTag } from '../import-item.ts';

/**
 * What every sidecar reader shares: the media file it describes, and the small conversions from
 * what boards write (ids as numbers or strings, ratings as letters or words, sources as free text)
 * to what ImportItem holds. Nothing here throws: a value that does not fit is left out (null).
 */

/** A parsed JSON object, as a sidecar reader receives it. */
export type Json = Record<string, unknown>;

/** The media file a sidecar belongs to: where it is, and its path relative to the import root. */
export interface Media {
  file: string;
  label: string;
}

/** A sidecar reader: the item, or why the sidecar cannot be one. */
export type SidecarReader = (data: Json, media: Media) => ImportItem | string;

/** An item with nothing known yet but its file: what a media file without a sidecar imports as. */
export function blankItem(media: Media, origin: string, originId: string | null = null): ImportItem {
  return {
    origin,
    originId,
    file: media.file,
    label: media.label,
    md5: null,
    tags: [],
    rating: null,
    source: null,
    title: null,
    description: null,
    createdAt: null,
    parentOriginId: null,
    pools: [],
    score: null,
    favCount: null,
    uploader: null,
    comments: [],
  };
}

export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
export const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v : null);

/** An id as boards write it: a number, or a string of digits (Gelbooru's XML, szurubooru). 0 is no id (Gelbooru's "no parent"). */
export function idText(v: unknown): string | null {
  const s = typeof v === 'number' && Number.isSafeInteger(v) ? String(v) : typeof v === 'string' ? v.trim() : '';
  return /^\d+$/.test(s) && !/^0+$/.test(s) ? s.replace(/^0+/, '') : null;
}

export function num(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v.trim())) return Number(v);
  return null;
}

const RATING_WORDS: Record<string, Rating> = {
  g: 'safe',
  general: 'safe',
  s: 'safe',
  sensitive: 'safe',
  safe: 'safe',
  q: 'sketchy',
  questionable: 'sketchy',
  sketchy: 'sketchy',
  e: 'unsafe',
  explicit: 'unsafe',
  unsafe: 'unsafe',
};

/** Danbooru's g/s/q/e (s was "safe" before 2022, "sensitive" since: both are safe here), Gelbooru's words, szurubooru's ours. */
export const rating = (v: unknown): Rating | null => (typeof v === 'string' ? (RATING_WORDS[v.trim().toLowerCase()] ?? null) : null);

/** One http(s) URL as post-family.ts's parseSource takes it, or null; a refused source is left out, never an error. */
function httpUrl(raw: string): string | null {
  if (raw.length > MAX_SOURCE) return null;
  try {
    const url = new URL(raw);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' ? raw : null;
  } catch {
    return null;
  }
}

/**
 * The first http(s) URL among the given sources. URLs hold no white space, so a source with several
 * (szurubooru's one a line, Gelbooru's space-separated) or with words around one ("pixiv #123") is
 * read word by word.
 */
export function source(...values: unknown[]): string | null {
  for (const v of values) {
    const words = typeof v === 'string' ? v.split(/\s+/) : [];
    for (const w of words) {
      const url = w && httpUrl(w);
      if (url) return url;
    }
  }
  return null;
}

export const md5 = (v: unknown): string | null => (typeof v === 'string' && /^[0-9a-f]{32}$/i.test(v) ? v.toLowerCase() : null);

/** ISO 8601 (Danbooru, e621, szurubooru) as epoch ms. */
export function isoTime(v: unknown): number | null {
  const ms = typeof v === 'string' && /^\d{4}-\d{2}-\d{2}/.test(v) ? Date.parse(v) : Number.NaN;
  return Number.isNaN(ms) ? null : ms;
}

/** A space-separated tag string as a list (Danbooru's tag_string, Moebooru's and Gelbooru's tags). */
export const words = (v: unknown): string[] => (typeof v === 'string' ? v.split(/\s+/).filter((w) => w !== '') : []);

/**
 * A post's tags: every name in `all`, in its order, with the category `typed` gives it (null when
 * none does), then any typed name `all` lacked. Boards that split tags by kind (Danbooru's
 * tag_string_artist, gallery-dl's tags_<type>) list each kind apart from the whole.
 */
export function categorized(all: string[], typed: [string[], TagCategory | null][]): ImportTag[] {
  const category = new Map<string, TagCategory | null>();
  for (const [names, c] of typed) for (const n of names) if (!category.get(n)) category.set(n, c);
  const out = new Map<string, TagCategory | null>();
  for (const n of [...all, ...category.keys()]) if (!out.has(n)) out.set(n, category.get(n) ?? null);
  return [...out].map(([name, c]) => ({ name, category: c }));
}

/**
 * gallery-dl's `tags_<type>` keys (its `tags` option, read from the post's page) as typed lists,
 * with the category `kinds` maps each type to (a type it does not name: null).
 */
export function typedTags(data: Json, kinds: Record<string, TagCategory>, split: (v: unknown) => string[] = words): [string[], TagCategory | null][] {
  return Object.keys(data)
    .filter((k) => k.startsWith('tags_'))
    .sort()
    .map((k) => [split(data[k]), kinds[k.slice(5)] ?? null]);
}

/** A pool ref from gallery-dl's pool extractor, whose metadata is the pool's id (and maybe its name). */
export function poolRef(id: unknown, name: unknown, position: unknown = null, description: unknown = null): ImportPoolRef | null {
  const key = idText(id);
  const pos = num(position);
  return key ? { key, name: text(name), position: pos !== null && Number.isInteger(pos) && pos > 0 ? pos : null, description: text(description) } : null;
}
