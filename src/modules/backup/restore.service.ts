import fs from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../../config.ts';
import { sqlitePath } from '../../db/database.ts';
import { BackupError, DATABASE_FILE, hashFile, readBackup, type MediaEntry } from './backup-format.ts';
import { exists } from './backup.service.ts';

export interface RestoreReport {
  mediaFiles: number;
  /** Copied by --media-from (files already in place with the right size are left as they are). */
  copied: number;
  /** Listed in the backup, absent from DATA_DIR/media. */
  missing: string[];
  /** Present, but not the bytes the backup listed. */
  different: string[];
}

/**
 * Restores a backup into config.dataDir, which must not hold a board yet. With `mediaFrom` (a
 * copy of the old DATA_DIR/media), copies the listed media files from there first. Then checks
 * every listed file in DATA_DIR/media against its size and sha256, and puts the database in
 * place last (temporary name, then rename), so a DATA_DIR with a database is a finished restore.
 */
export async function restoreBackup(
  config: Config,
  from: string,
  mediaFrom: string | null,
  onProgress: (step: string, done: number, total: number) => void = () => {},
): Promise<RestoreReport> {
  const { media } = await readBackup(from);
  const dbFile = sqlitePath({ url: '', dataDir: config.dataDir });
  if (await exists(dbFile)) throw new BackupError(`${dbFile} already exists: restore only into a DATA_DIR without a board`);
  const mediaRoot = path.join(config.dataDir, 'media');
  await fs.mkdir(mediaRoot, { recursive: true });
  let copied = 0;
  if (mediaFrom) {
    for (const [i, e] of media.entries()) {
      if (await copyMedia(path.join(mediaFrom, e.rel), path.join(mediaRoot, e.rel), e)) copied++;
      onProgress('copying media', i + 1, media.length);
    }
  }
  const missing: string[] = [];
  const different: string[] = [];
  for (const [i, e] of media.entries()) {
    const got = await hashFile(path.join(mediaRoot, e.rel)).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return null;
      throw err;
    });
    if (!got) missing.push(e.rel);
    else if (got.bytes !== e.bytes || got.sha256 !== e.sha256) different.push(e.rel);
    onProgress('checking media', i + 1, media.length);
  }
  const partial = `${dbFile}.restore-${process.pid}`;
  await fs.copyFile(path.join(from, DATABASE_FILE), partial);
  await fs.rename(partial, dbFile);
  return { mediaFiles: media.length, copied, missing, different };
}

/** Copies one listed file unless it is already there with its size; false when there was nothing to copy. */
async function copyMedia(source: string, dest: string, e: MediaEntry): Promise<boolean> {
  const there = await fs.stat(dest).catch(() => null);
  if (there?.size === e.bytes) return false;
  if (!(await exists(source))) return false;
  await fs.mkdir(path.dirname(dest), { recursive: true });
  const partial = `${dest}.restore-${process.pid}`;
  await fs.copyFile(source, partial);
  await fs.rename(partial, dest);
  return true;
}
