export interface StoredFile {
  /** Relative path, `/`-separated. */
  rel: string;
  /** Last written, in ms since the epoch. */
  modifiedAt: number;
}

/** Where media lives. Paths are relative (`originals/ab/cd/<sha256>.png`); the API shows them under /media/. */
export interface MediaStore {
  /** Writes bytes atomically (temporary name, then rename). */
  put(rel: string, data: Buffer): Promise<void>;
  /** Moves a finished temporary file into place atomically. */
  putFile(rel: string, tmpPath: string): Promise<void>;
  get(rel: string): Promise<Buffer>;
  delete(rel: string): Promise<void>;
  exists(rel: string): Promise<boolean>;
  /** Every stored file (for `imageboard media check`). */
  list(): AsyncIterable<StoredFile>;
  /** The path clients fetch. */
  publicPath(rel: string): string;
  /** A local file path for tools that need one (ffmpeg, sharp). */
  localPath(rel: string): string;
}
