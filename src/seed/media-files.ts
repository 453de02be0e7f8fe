import fs from 'node:fs';
import path from 'node:path';
import { contentPath } from '../core/media-paths.ts';
import { postMark, withTextChunk } from './png-text.ts';

/** What the media writer needs of a base picture. */
export interface BaseBytes {
  png: Uint8Array;
  thumb: Uint8Array;
}

export interface MediaJob {
  postId: number;
  base: number;
  sha256: string;
}

const LINK_FALLBACK = new Set(['EMLINK', 'EXDEV', 'EPERM', 'ENOTSUP', 'EOPNOTSUPP']);

/**
 * Writes seeded posts' files under DATA_DIR/media with synchronous calls: it runs on its own
 * thread, so blocking costs the database work nothing. An original is written in place (its
 * name is its content hash, so a leftover file of the same name already holds the same bytes);
 * a thumbnail is a hard link to the first thumbnail written for the same base picture.
 */
export class MediaFiles {
  private readonly dirs = new Set<string>();
  private readonly thumbSource: (string | undefined)[] = [];
  private readonly pngs: Buffer[];

  constructor(
    private readonly mediaDir: string,
    private readonly bases: BaseBytes[],
  ) {
    // Buffers reach a worker as plain Uint8Arrays; view them as Buffers again, without copying.
    this.pngs = bases.map((b) => Buffer.from(b.png.buffer, b.png.byteOffset, b.png.byteLength));
  }

  /** Writes one post's original and thumbnail; returns the bytes written. */
  writePost(job: MediaJob): number {
    const original = withTextChunk(this.pngs[job.base], ...postMark(job.postId));
    fs.writeFileSync(this.target(contentPath('originals', job.sha256, 'png')), original);
    this.placeThumb(job.base, this.target(contentPath('thumbs', job.sha256, 'webp')));
    return original.length;
  }

  private target(relative: string): string {
    const file = path.join(this.mediaDir, relative);
    const dir = path.dirname(file);
    if (!this.dirs.has(dir)) {
      fs.mkdirSync(dir, { recursive: true });
      this.dirs.add(dir);
    }
    return file;
  }

  private placeThumb(base: number, file: string): void {
    const source = this.thumbSource[base];
    if (source === undefined) {
      this.writeThumb(base, file);
      return;
    }
    try {
      fs.linkSync(source, file);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? '';
      if (code === 'EEXIST') return; // same name, same content: from an earlier run into this DATA_DIR
      if (!LINK_FALLBACK.has(code)) throw err;
      this.writeThumb(base, file); // links unsupported or this inode is full: start a new source
    }
  }

  private writeThumb(base: number, file: string): void {
    // Through a temporary name: `file` may be a hard link left by an earlier run, which an
    // in-place write would change under every other name as well.
    const temp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(temp, this.bases[base].thumb);
    fs.renameSync(temp, file);
    this.thumbSource[base] = file;
  }
}
