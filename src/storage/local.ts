import fs from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

/** Media on local disk under DATA_DIR/media. Writes go to a temporary name and are renamed into place. */
export class LocalMediaStore {
  constructor(readonly root: string) {}

  /** Absolute path of a stored relative path; refuses anything that would leave the media folder. */
  resolve(rel: string): string {
    const abs = path.resolve(this.root, rel);
    if (!abs.startsWith(this.root + path.sep)) throw new Error(`path escapes the media folder: ${rel}`);
    return abs;
  }

  async put(rel: string, data: Buffer): Promise<void> {
    const abs = this.resolve(rel);
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

  async get(rel: string): Promise<Buffer> {
    return fs.readFile(this.resolve(rel));
  }

  async delete(rel: string): Promise<void> {
    await fs.rm(this.resolve(rel), { force: true });
  }

  async exists(rel: string): Promise<boolean> {
    return fs.access(this.resolve(rel)).then(() => true, () => false);
  }
}
