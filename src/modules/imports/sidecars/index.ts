import type { ImportItem } from '../import-item.ts';
import { readDanbooru } from './danbooru.ts';
import { readE621 } from './e621.ts';
import { isObject, type Json, type Media, type SidecarReader } from './fields.ts';
import { gelbooruTime, readGelbooru } from './gelbooru.ts';
import { readMoebooru } from './moebooru.ts';
import { readPlainText } from './plain-text.ts';
import { readSzurubooru } from './szurubooru.ts';

export { blankItem, type Media } from './fields.ts';

/**
 * Which board a sidecar's JSON came from, told by its content: gallery-dl's `category` is an
 * instance's name, which may be one it has never heard of, so the fields' shapes decide first and
 * the known names only part Moebooru from Gelbooru when the shapes do not.
 */

export type Shape = 'danbooru' | 'e621' | 'moebooru' | 'gelbooru' | 'szurubooru';

const READERS: Record<Shape, SidecarReader> = {
  danbooru: readDanbooru,
  e621: readE621,
  moebooru: readMoebooru,
  gelbooru: readGelbooru,
  szurubooru: readSzurubooru,
};

const MOEBOORUS = new Set(['yandere', 'konachan', 'sakugabooru', 'lolibooru']);
const GELBOORUS = new Set(['gelbooru', 'realbooru', 'rule34', 'safebooru', 'tbib', 'hypnohub']);

export function detect(data: unknown): Shape | null {
  if (!isObject(data)) return null;
  // e621 alone keeps tags in an object of lists by kind, and the file's details in `file`.
  if (isObject(data.tags) && (isObject(data.file) || isObject(data.relationships))) return 'e621';
  if (typeof data.tag_string === 'string') return 'danbooru';
  if ('checksumMD5' in data || 'safety' in data || 'creationTime' in data) return 'szurubooru';
  if (typeof data.tags !== 'string') return null;
  const category = typeof data.category === 'string' ? data.category : '';
  // Moebooru writes unix seconds and an `author`; Gelbooru a ctime-like date and an `owner`.
  if (typeof data.created_at === 'number' || 'author' in data || 'jpeg_url' in data) return 'moebooru';
  if (gelbooruTime(data.created_at) !== null || 'owner' in data) return 'gelbooru';
  if (MOEBOORUS.has(category)) return 'moebooru';
  if (GELBOORUS.has(category)) return 'gelbooru';
  return null;
}

const SHAPES = Object.keys(READERS).join(', ');

/** A sidecar's JSON as an item, or why it is none. */
export function readJsonSidecar(data: unknown, media: Media): ImportItem | string {
  const shape = detect(data);
  if (!shape) return `the sidecar is of no shape this import reads (gallery-dl metadata of ${SHAPES})`;
  return READERS[shape](data as Json, media);
}

/**
 * A sidecar file's content as an item, or why it is none: `.json` is gallery-dl metadata of one
 * of the shapes above, anything else (`.txt`) tags one a line.
 */
export function readSidecar(name: string, content: string, media: Media): ImportItem | string {
  if (!name.toLowerCase().endsWith('.json')) return readPlainText(content, media);
  let data: unknown;
  try {
    data = JSON.parse(content.replace(/^\uFEFF/, ''));
  } catch (err) {
    return `the sidecar is not JSON: ${(err as Error).message}`;
  }
  return readJsonSidecar(data, media);
}
