import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Config } from '../../config.ts';
import { DATABASE_FILE, hashFile } from './backup-format.ts';
import { MediaProblems, planRestore, type RestoreOptions } from './restore-check.ts';

export { MediaProblems, type RestoreOptions };

export interface RestoreReport {
  mediaFiles: number;
  /** Copied from --media-from. */
  copied: number;
  /** Already in DATA_DIR/media with the listed bytes. */
  inPlace: number;
  /** Found nowhere and restored without (--allow-missing). */
  missing: string[];
  /** MEDIA_STORE=s3: the media were neither copied nor checked here. */
  mediaInBucket: boolean;
}

/**
 * Restores a backup into config.dataDir, which must not hold a board yet. Everything that can be
 * checked is checked first (planRestore), so a wrong --media-from or a backup that is not whole
 * writes nothing. Then the listed media are copied, each checked against its sha256 as it is
 * written, and the database is put in place last, so a DATA_DIR with a database is a finished
 * restore. A failure on the way (other bytes than listed, a full disk, `signal`) takes back
 * everything written, and DATA_DIR is as it was found.
 */
export async function restoreBackup(
  config: Config,
  from: string,
  options: RestoreOptions,
  onProgress: (step: string, done: number, total: number) => void = () => {},
  signal?: AbortSignal,
): Promise<RestoreReport> {
  const plan = await planRestore(config, from, options, onProgress, signal);
  const written = new Written();
  try {
    const different: string[] = [];
    for (const [i, { entry, source }] of plan.toCopy.entries()) {
      signal?.throwIfAborted();
      const dest = path.join(plan.mediaRoot, entry.rel);
      // After a file with other bytes the rest are still read, so the message names them all, but no longer copied.
      const got = different.length === 0 ? await written.copy(source, dest, signal) : await hashFile(source);
      if (got.bytes !== entry.bytes || got.sha256 !== entry.sha256) different.push(entry.rel);
      onProgress('copying', i + 1, plan.toCopy.length);
    }
    if (different.length > 0) {
      throw new MediaProblems(
        `Nothing was restored; ${config.dataDir} is as it was.\n` +
          `${different.length} media files under ${options.mediaFrom} have other bytes than the backup lists (sha256):\n` +
          `${different
            .slice(0, 10)
            .map((r) => `  ${r}\n`)
            .join('')}` +
          'Use the media copy made for this backup (or copy those files again), then run the same restore again.',
        [],
        different,
      );
    }
    signal?.throwIfAborted();
    await written.copy(path.join(from, DATABASE_FILE), plan.database, signal);
  } catch (err) {
    await written.undo();
    throw err;
  }
  return { mediaFiles: plan.listed, copied: plan.toCopy.length, inPlace: plan.inPlace, missing: plan.missing, mediaInBucket: plan.mediaInBucket };
}

/** What a restore has written (files, and the folders it made for them), so that one that fails can take it all back. */
class Written {
  private files: string[] = [];
  private dirs: string[] = [];

  /** Copies source to dest under a temporary name, then renames; the size and sha256 of what was copied. */
  async copy(source: string, dest: string, signal?: AbortSignal): Promise<{ bytes: number; sha256: string }> {
    await this.mkdir(path.dirname(dest));
    const partial = `${dest}.restore-${process.pid}`;
    this.files.push(partial);
    const hash = createHash('sha256');
    let bytes = 0;
    await pipeline(
      createReadStream(source),
      async function* (chunks: AsyncIterable<Buffer>) {
        for await (const chunk of chunks) {
          hash.update(chunk);
          bytes += chunk.length;
          yield chunk;
        }
      },
      createWriteStream(partial, { flags: 'wx' }),
      { signal },
    );
    this.files.push(dest);
    await fs.rename(partial, dest);
    return { bytes, sha256: hash.digest('hex') };
  }

  private async mkdir(dir: string): Promise<void> {
    const first = await fs.mkdir(dir, { recursive: true });
    if (first === undefined) return;
    // Every folder from the first one made down to dir is new.
    for (let d = dir; ; d = path.dirname(d)) {
      this.dirs.push(d);
      if (d === first || path.dirname(d) === d) break;
    }
  }

  async undo(): Promise<void> {
    for (const f of this.files.reverse()) await fs.rm(f, { force: true });
    // Deepest first; a folder something else has written into meanwhile stays.
    for (const d of this.dirs.sort((a, b) => b.length - a.length)) await fs.rmdir(d).catch(() => {});
  }
}
