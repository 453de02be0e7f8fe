import type { Rating } from '../../core/schemas.ts';
import type { TagCategory } from '../../core/tag-categories.ts';

/**
 * What every importer reads a source into, whatever the source (a folder of sidecars of any shape,
 * a Danbooru-compatible API, this board's own export): posts as ImportItem, and the board-wide
 * data (tags' categories and descriptions, aliases, implications, pools in order) as BoardData.
 * The writer (import-writer.ts) knows only these shapes.
 */

/** A tag as the source gave it: a name in our rules' form is made by the writer; category null = unknown. */
export interface ImportTag {
  name: string;
  category: TagCategory | null;
}

/** A pool a post is in, as the post's own metadata names it. */
export interface ImportPoolRef {
  /** The pool's identity at the origin (its id there, or its name when the source has no ids). */
  key: string;
  /** Its name, when the post's metadata gives one (else the pool list of BoardData does). */
  name: string | null;
  /** Its place in the pool (1 = first), when the metadata gives one. */
  position: number | null;
  /** The pool's description, when the post's metadata carries the pool (Danbooru's, e621's pool extractors). */
  description: string | null;
}

/** A comment on a post at the origin. */
export interface ImportComment {
  /** Its id at the origin; comments are imported once by it. */
  key: string;
  /** The original author's name (kept with the comment; the comment is written as the importing user). */
  author: string | null;
  body: string;
  /** Epoch milliseconds, or null for the time of the import. */
  createdAt: number | null;
}

/** One post to import. */
export interface ImportItem {
  /**
   * The board the post comes from, e.g. `danbooru`, `e621`, `gelbooru`, `yandere`, a szurubooru
   * instance's name (gallery-dl's `category`), or a URL's host for an API import; `file` for
   * sidecars that name no board (plain `.txt` tags).
   */
  origin: string;
  /** The post's id at the origin, or null when the source has none (the file's sha256 stands for it). */
  originId: string | null;
  /** Where the media file is on disk. */
  file: string;
  /** Delete `file` once the item is written or refused (a download to a temporary file). */
  temporary?: boolean;
  /** A name for messages and the report: the file's path, or `origin #id`. */
  label: string;
  /** The MD5 the source claims for the file (lower-case hex): checked against the bytes. */
  md5: string | null;
  tags: ImportTag[];
  rating: Rating | null;
  source: string | null;
  title: string | null;
  description: string | null;
  /** Epoch milliseconds of the post's creation at the origin. */
  createdAt: number | null;
  /** The parent post's id at the same origin. */
  parentOriginId: string | null;
  pools: ImportPoolRef[];
  /** The score (up minus down votes) at the origin: kept as metadata, never turned into likes. */
  score: number | null;
  /** How many favorited it at the origin: kept as metadata, never turned into favorites. */
  favCount: number | null;
  /** The original uploader's name. */
  uploader: string | null;
  comments: ImportComment[];
}

/** Board-wide data a source has beside its posts. Every part may be empty. */
export interface BoardData {
  /** Tags' categories and descriptions (wiki pages); a tag not listed keeps what its posts say. */
  tags: { name: string; category: TagCategory | null; description: string | null }[];
  aliases: { from: string; to: string }[];
  implications: { from: string; to: string }[];
  /** Pools with their posts in order, as ids at the pool's origin (the items' `origin`). */
  pools: { origin: string; key: string; name: string; description: string | null; postOriginIds: string[] }[];
}

/** Something a source could not read (a sidecar that is no JSON, a media file without one, ...). */
export interface ImportProblem {
  label: string;
  reason: string;
}

export type SourceEntry = { kind: 'post'; item: ImportItem } | { kind: 'problem'; problem: ImportProblem };

/** A source of posts: read once, front to back. */
export interface ImportSource {
  /** How many posts it holds, when known before reading (for the progress bar's time left). */
  total(): Promise<number | null>;
  entries(): AsyncIterable<SourceEntry>;
  /** Read after the entries: tags, relations and pools (pools may only be known once all posts are read). */
  board(): Promise<BoardData>;
}

/** The source cannot be read at all (not there, not what it should be, the board refuses us): the import stops. */
export class SourceError extends Error {
  override name = 'SourceError';
}

export const emptyBoard = (): BoardData => ({ tags: [], aliases: [], implications: [], pools: [] });
