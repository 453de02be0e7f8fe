import path from 'node:path';
import type { Rating } from '../../core/schemas.ts';
import type { TagCategory } from '../../core/tag-categories.ts';

/**
 * The folder `imageboard export` writes and export-source.ts reads back (docs/export-format.md).
 * Shared by both sides so the names cannot drift apart.
 */
export const FORMAT = 'imageboard-export';
export const VERSION = 1;
/** Written last: a folder holding it is a finished export. */
export const MANIFEST = 'manifest.json';
/** Written first and removed once the manifest is there: marks an export under way (or cut off), ours to resume. */
export const UNFINISHED = 'export-unfinished.json';
export const POSTS_DIR = 'posts';
export const TAGS_FILE = 'tags.jsonl';
export const ALIASES_FILE = 'aliases.json';
export const IMPLICATIONS_FILE = 'implications.json';
export const POOLS_FILE = 'pools.json';
/** Posts a fan-out folder holds: ids 0-999 in posts/0000, 1000-1999 in posts/0001, ... (id order is folder order). */
export const PER_FOLDER = 1000;

export interface Manifest {
  format: typeof FORMAT;
  version: number;
  /** The origin board's name: its PUBLIC_URL's host, else `imageboard`. */
  board: string;
  exportedAt: string;
  /** The search query the export was limited to (--q), or null for the whole board. */
  query: string | null;
  posts: number;
}

/** A comment's or post's row from an earlier import (the import_records table): what its origin said. */
export interface ImportedFrom {
  origin: string;
  origin_id: string;
  author: string | null;
}

export interface CommentJson {
  id: number;
  author: string | null;
  body: string;
  created_at: string;
  parent_id: number | null;
  imported: ImportedFrom[];
}

/** `<id>.<ext>.json`, beside the media file. snake_case, as the sidecars of other boards are. */
export interface PostSidecar {
  id: number;
  /** The post's identity: the hashes of the bytes as uploaded (the stored original may have had its metadata stripped since). */
  sha256: string;
  md5: string | null;
  /** The media file beside this sidecar, and the hashes of exactly its bytes. */
  file: { name: string; mime: string; bytes: number; sha256: string; md5: string };
  title: string;
  description: string;
  rating: Rating;
  source: string | null;
  created_at: string;
  parent_id: number | null;
  uploader: string | null;
  tags: { name: string; category: TagCategory }[];
  pools: { id: number; position: number }[];
  like_count: number;
  favorite_count: number;
  comments: CommentJson[];
  imported: (ImportedFrom & { score: number | null; fav_count: number | null })[];
}

export interface TagLine {
  name: string;
  category: TagCategory;
  description: string;
}

export interface RelationJson {
  from: string;
  to: string;
}

export interface PoolJson {
  id: number;
  name: string;
  description: string;
  is_public: boolean;
  post_ids: number[];
}

/** The fan-out folder of a post, relative to the export: `posts/0012` for ids 12000-12999. */
export const postFolder = (id: number): string => path.posix.join(POSTS_DIR, String(Math.floor(id / PER_FOLDER)).padStart(4, '0'));

/** The media file's name: the id and the stored original's extension. */
export const mediaName = (id: number, storedPath: string): string => `${id}${path.posix.extname(storedPath)}`;

export const sidecarName = (media: string): string => `${media}.json`;

/** An export that cannot be written as asked (a folder that is not ours, a bad query); the message says why. */
export class ExportError extends Error {}
