import fs from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { MEDIA_PREFIX } from '../core/media-paths.ts';
import type { MediaStore } from './media-store.ts';

/** Media on local disk under DATA_DIR/media. Writes go to a temporary name and are renamed into place. */
export class LocalMediaStore implements MediaStore {
  readonly root: string;

  constructor(root: string) {
    this.root = path.resolve(root);
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
    const tmp = `${abs}.${randomBytes(6).toString('hex')}.tmp`;
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
    return fs.access(this.localPath(rel)).then(() => true, () => false);
  }

  async *list(): AsyncIterable<string> {
    let entries: string[];
    try {
      entries = (await fs.readdir(this.root, { recursive: true })) as string[];
    } catch {
      return;
    }
    for (const e of entries) {
      const stat = await fs.stat(path.join(this.root, e)).catch(() => null);
      if (stat?.isFile()) yield e.split(path.sep).join('/');
    }
  }
}
