import fs from 'node:fs/promises';
import path from 'node:path';
import { ownedName } from './owner.ts';

/**
 * Work that writes or removes media files and rows in two steps (files, then the post's row; the
 * row, then its files) first notes the files in a journal in DATA_DIR/tmp and removes the note
 * when done. A process killed in between leaves the note, and start-up (recover.ts) removes the
 * noted files that no row claims.
 */
export async function withMediaJournal<T>(tmpDir: string, paths: string[], work: () => Promise<T>): Promise<T> {
  await fs.mkdir(tmpDir, { recursive: true });
  const note = path.join(tmpDir, ownedName('pending'));
  try {
    // A full disk fails the write after the file was made: the finally removes it too.
    await fs.writeFile(note, JSON.stringify(paths));
    return await work();
  } finally {
    await fs.rm(note, { force: true });
  }
}

/** The media paths a journal names. */
export async function journalPaths(file: string): Promise<string[]> {
  try {
    const paths: unknown = JSON.parse(await fs.readFile(file, 'utf8'));
    return Array.isArray(paths) ? paths.filter((p): p is string => typeof p === 'string') : [];
  } catch {
    return []; // cut off while being written: nothing was stored under it yet
  }
}
