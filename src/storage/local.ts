import { mkdirSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { MEDIA_PREFIX } from '../core/media-paths.ts';
import type { MediaStore, StoredFile } from './media-store.ts';
import { ownedName } from './owner.ts';

/**
 * Media on local disk under DATA_DIR/media. Writes go to a temporary file in DATA_DIR/tmp (named
 * for this process, so a restart can clear what a killed one left) and are renamed into place.
 */
export class LocalMediaStore implements MediaStore {
  readonly root: string;
  readonly tmpDir: string;

  constructor(root: string, tmpDir = path.join(root, '..', 'tmp')) {
    this.root = path.resolve(root);
    this.tmpDir = path.resolve(tmpDir);
    // Once here rather than before every write: each upload writes three files through put().
    mkdirSync(this.tmpDir, { recursive: true });
  }

  /** Absolute path of a stored relative path; refuses anything that would leave the media folder. */
  localPath(rel: string): string {
    const abs = path.resolve(this.root, rel);
    if (!abs.startsWith(this.root + path.sep)) throw new Error(`path escapes the media folder: ${rel}`);
    return abs;
  }

  publicPath(rel: string): string {
    return MEDIA_PREFIX + rel;
  }

  async put(rel: string, data: Buffer): Promise<void> {
    const abs = this.localPath(rel);
    await fs.mkdir(path.dirname(abs), { recursive: true });
    const tmp = path.join(this.tmpDir, ownedName('tmp'));
    try {
      await fs.writeFile(tmp, data);
      await fs.rename(tmp, abs);
    } catch (err) {
      await fs.rm(tmp, { force: true });
      throw err;
    }
  }

  async putFile(rel: string, tmpPath: string): Promise<void> {
    const abs = this.localPath(rel);
    await fs.mkdir(path.dirname(abs), { recursive: true });
    try {
      await fs.rename(tmpPath, abs);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
      await this.put(rel, await fs.readFile(tmpPath));
    }
  }

  async get(rel: string): Promise<Buffer> {
    return fs.readFile(this.localPath(rel));
  }

  async delete(rel: string): Promise<void> {
    await fs.rm(this.localPath(rel), { force: true });
  }

  async exists(rel: string): Promise<boolean> {
    return fs.access(this.localPath(rel)).then(
      () => true,
      () => false,
    );
  }

  async *list(): AsyncIterable<StoredFile> {
    let entries: string[];
    try {
      entries = (await fs.readdir(this.root, { recursive: true })) as string[];
    } catch {
      return;
    }
    for (const e of entries) {
      const stat = await fs.stat(path.join(this.root, e)).catch(() => null);
      if (stat?.isFile()) yield { rel: e.split(path.sep).join('/'), modifiedAt: stat.mtimeMs };
    }
  }
}
