import type { Readable } from 'node:stream';

export interface StoredFile {
  /** Relative path, `/`-separated. */
  rel: string;
  /** Last written, in ms since the epoch. */
  modifiedAt: number;
  size: number;
}

/**
 * Where media live: DATA_DIR/media (local.ts) or a bucket (s3.ts). Paths are relative
 * (`originals/ab/cd/<sha256>.png`) and the same in both, so a board moves from one to the other
 * by copying (`imageboard media migrate`). Reading a missing file rejects with code ENOENT.
 */
export interface MediaStore {
  /** Writes bytes whole: a reader sees the old file or the new one, never part of one. */
  put(rel: string, data: Buffer): Promise<void>;
  /** Stores a finished temporary file whole, streamed from disk; the temporary file may be moved away. */
  putFile(rel: string, tmpPath: string): Promise<void>;
  /** The file's bytes as a stream. */
  read(rel: string): Promise<Readable>;
  delete(rel: string): Promise<void>;
  exists(rel: string): Promise<boolean>;
  /** Size and time of one file, null when missing. */
  stat(rel: string): Promise<StoredFile | null>;
  /** Every stored file (for `imageboard media check` and `media migrate`). */
  list(): AsyncIterable<StoredFile>;
  /**
   * Runs `work` with a local path of the file for tools that need one (ffmpeg, sharp): the file
   * itself on disk, or a temporary copy removed afterwards.
   */
  withLocalFile<T>(rel: string, work: (file: string) => Promise<T>): Promise<T>;
  /** Resolves when the store can be read and written now (readiness checks); rejects saying why not. */
  check(): Promise<void>;
  /** Releases connections (the server and commands call it once, when they stop). */
  close(): Promise<void>;
}
