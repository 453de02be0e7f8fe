import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
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
    mkdirSync(this.root, { recursive: true });
  }

  /** Absolute path of a stored relative path; refuses anything that would leave the media folder. */
  localPath(rel: string): string {
    const abs = path.resolve(this.root, rel);
    if (!abs.startsWith(this.root + path.sep)) throw new Error(`path escapes the media folder: ${rel}`);
    return abs;
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
      // Another disk: copied beside the target first, so the rename into place stays whole.
      const tmp = path.join(this.tmpDir, ownedName('tmp'));
      try {
        await fs.copyFile(tmpPath, tmp);
        await fs.rename(tmp, abs);
      } catch (err2) {
        await fs.rm(tmp, { force: true });
        throw err2;
      }
    }
  }

  async read(rel: string): Promise<Readable> {
    // Opened first, so a missing file rejects here rather than on the first read.
    const handle = await fs.open(this.localPath(rel));
    return handle.createReadStream();
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

  async stat(rel: string): Promise<StoredFile | null> {
    const stat = await fs.stat(this.localPath(rel)).catch(() => null);
    return stat?.isFile() ? { rel, modifiedAt: stat.mtimeMs, size: stat.size } : null;
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
      if (stat?.isFile()) yield { rel: e.split(path.sep).join('/'), modifiedAt: stat.mtimeMs, size: stat.size };
    }
  }

  async withLocalFile<T>(rel: string, work: (file: string) => Promise<T>): Promise<T> {
    return work(this.localPath(rel));
  }

  /** Writes and removes a probe file in the media folder and its temporary folder: access() alone passes for root whatever the folder's mode, and for a file in its place. */
  async check(): Promise<void> {
    for (const dir of [this.root, this.tmpDir]) {
      const probe = path.join(dir, `.readyz-${process.pid}-${randomBytes(6).toString('hex')}`);
      try {
        await fs.writeFile(probe, 'probe');
      } finally {
        // A full disk fails the write after the file was made: removed whatever happened.
        await fs.rm(probe, { force: true });
      }
    }
  }

  async close(): Promise<void> {}
}
