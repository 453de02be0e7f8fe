import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';

/**
 * A backup is a folder (docs/deploy.md, Backups and restore):
 *   manifest.json  what it is, when it was made, what it holds
 *   imageboard.db  the SQLite database as it stood at one instant
 *   media.tsv      every media file that database refers to: path (under DATA_DIR/media), bytes, sha256
 * Media files themselves are copied by the operator (or by `imageboard restore --media-from`) and
 * checked against media.tsv.
 */
export const FORMAT = 'imageboard-backup';
export const VERSION = 1;
export const DATABASE_FILE = 'imageboard.db';
export const MEDIA_LIST = 'media.tsv';
export const MANIFEST = 'manifest.json';
const MEDIA_HEADER = 'path\tbytes\tsha256';

export interface MediaEntry {
  rel: string;
  bytes: number;
  sha256: string;
}

export interface Manifest {
  format: typeof FORMAT;
  version: number;
  createdAt: string;
  database: typeof DATABASE_FILE;
  posts: number;
  mediaFiles: number;
  mediaBytes: number;
  /** Files the database refers to that were gone when the backup read them (deleted meanwhile, or missing already). */
  missingMedia: string[];
}

/** A backup that cannot be made or restored as asked; the message says why, for the operator. */
export class BackupError extends Error {}

export async function hashFile(abs: string): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(abs)) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { bytes, sha256: hash.digest('hex') };
}

export const formatMediaList = (entries: MediaEntry[]) => `${MEDIA_HEADER}\n${entries.map((e) => `${e.rel}\t${e.bytes}\t${e.sha256}\n`).join('')}`;

export async function readBackup(dir: string): Promise<{ manifest: Manifest; media: MediaEntry[] }> {
  let manifest: Manifest;
  try {
    manifest = JSON.parse(await fs.readFile(path.join(dir, MANIFEST), 'utf8')) as Manifest;
  } catch {
    // The manifest is written last: a folder without it is an unfinished backup, or not one at all.
    throw new BackupError(`${dir} is not a backup: it has no readable ${MANIFEST}. Name the folder \`imageboard backup\` made.`);
  }
  if (manifest.format !== FORMAT || manifest.version !== VERSION) {
    throw new BackupError(`${dir} is not a backup this version can restore (format ${manifest.format} version ${manifest.version})`);
  }
  const list = await fs.readFile(path.join(dir, MEDIA_LIST), 'utf8').catch(() => {
    throw new BackupError(`${dir} is not a whole backup: ${MEDIA_LIST} is missing or unreadable. Restore from a whole copy of the backup folder.`);
  });
  const lines = list.split('\n').filter(Boolean);
  if (lines[0] !== MEDIA_HEADER) throw new BackupError(`${path.join(dir, MEDIA_LIST)} does not start with the line "${MEDIA_HEADER}"`);
  const media = lines.slice(1).map((line) => {
    const [rel, bytes, sha256] = line.split('\t');
    if (!rel || path.isAbsolute(rel) || rel.split('/').includes('..') || !/^\d+$/.test(bytes) || !/^[0-9a-f]{64}$/.test(sha256)) {
      throw new BackupError(`${MEDIA_LIST}: a line is not "path<TAB>bytes<TAB>sha256": ${line.slice(0, 200)}`);
    }
    return { rel, bytes: Number(bytes), sha256 };
  });
  if (media.length !== manifest.mediaFiles) {
    throw new BackupError(
      `${dir} is not a whole backup: ${MEDIA_LIST} lists ${media.length} files, ${MANIFEST} says ${manifest.mediaFiles}. Restore from a whole copy of the backup folder.`,
    );
  }
  return { manifest, media };
}
