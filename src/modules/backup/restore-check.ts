import fs from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../../config.ts';
import { sqlitePath } from '../../db/database.ts';
import { openReadOnly } from '../../db/snapshot.ts';
import { BackupError, DATABASE_FILE, hashFile, type Manifest, type MediaEntry, readBackup } from './backup-format.ts';
import { countPostRows } from '../../db/counters.ts';
import { quickCheck } from './backup.repo.ts';

/**
 * Media files that keep a restore from going ahead: missing (not in DATA_DIR/media nor under
 * --media-from) or different (another size or sha256 than the backup lists). Nothing was
 * written; the message says what to do.
 */
export class MediaProblems extends BackupError {
  constructor(
    message: string,
    readonly missing: string[],
    readonly different: string[],
  ) {
    super(message);
  }
}

export interface RestoreOptions {
  /** A copy of the old DATA_DIR/media to copy the listed files from. */
  mediaFrom: string | null;
  /** Restore even when listed files are found nowhere (posts deleted after the backup, files lost). */
  allowMissing: boolean;
}

/** What a restore will do, found out before it writes anything. */
export interface RestorePlan {
  database: string;
  mediaRoot: string;
  /** MEDIA_STORE=s3: the media are in the bucket, not this restore's business. */
  mediaInBucket: boolean;
  listed: number;
  /** Already in DATA_DIR/media with the listed bytes: left as they are. */
  inPlace: number;
  /** To copy from --media-from; their size is right, their sha256 is checked as they are copied. */
  toCopy: { entry: MediaEntry; source: string }[];
  /** Found nowhere, restored without them (allowMissing only). */
  missing: string[];
}

type Progress = (step: string, done: number, total: number) => void;

/**
 * Every check a restore can make before writing: the backup is whole (manifest, media list and a
 * sound database with the posts it says), DATA_DIR holds no board, and each listed media file is
 * in DATA_DIR/media with its bytes or under --media-from with its size. Throws BackupError (or
 * MediaProblems) naming what is wrong; reads only.
 */
export async function planRestore(config: Config, from: string, options: RestoreOptions, onProgress: Progress, signal?: AbortSignal): Promise<RestorePlan> {
  const { manifest, media } = await readBackup(from);
  const database = sqlitePath({ url: '', dataDir: config.dataDir });
  // A -wal file left beside would be read into the restored database as if it were its own.
  for (const file of [database, `${database}-wal`, `${database}-shm`, `${database}-journal`]) {
    if (await present(file)) throw new BackupError(`${file} already exists: restore only into a DATA_DIR without a board (set DATA_DIR to a new folder).`);
  }
  const mediaInBucket = config.mediaStore === 's3';
  if (mediaInBucket && options.mediaFrom) {
    throw new BackupError(
      "--media-from copies into DATA_DIR/media, and MEDIA_STORE=s3 keeps media in the bucket: copy them with the store's tools, then restore without --media-from and run `imageboard media check` (docs/deploy.md, Backups and restore).",
    );
  }
  if (options.mediaFrom && !(await fs.stat(options.mediaFrom).catch(() => null))?.isDirectory()) {
    throw new BackupError(`--media-from ${options.mediaFrom} does not exist or is not a folder: name the copy of DATA_DIR/media made after this backup.`);
  }
  // The slow checks after the quick ones.
  await checkDatabase(path.join(from, DATABASE_FILE), manifest);
  const mediaRoot = path.join(config.dataDir, 'media');
  const plan: RestorePlan = { database, mediaRoot, mediaInBucket, listed: media.length, inPlace: 0, toCopy: [], missing: [] };
  if (mediaInBucket) return plan;
  const different: string[] = [];
  const there: MediaEntry[] = [];
  for (const [i, e] of media.entries()) {
    signal?.throwIfAborted();
    const here = await size(path.join(mediaRoot, e.rel));
    const source = options.mediaFrom ? path.join(options.mediaFrom, e.rel) : null;
    const copyable = here === null && source ? await size(source) : null;
    if (here === e.bytes) there.push(e);
    else if (here !== null || (copyable !== null && copyable !== e.bytes)) different.push(e.rel);
    else if (copyable === null || source === null) plan.missing.push(e.rel);
    else plan.toCopy.push({ entry: e, source });
    onProgress('checking', i + 1, media.length);
  }
  // Files already in place are read whole now: nothing is written until they are known good.
  for (const [i, e] of there.entries()) {
    signal?.throwIfAborted();
    const got = await hashFile(path.join(mediaRoot, e.rel));
    if (got.bytes !== e.bytes || got.sha256 !== e.sha256) different.push(e.rel);
    else plan.inPlace++;
    onProgress('hashing', i + 1, there.length);
  }
  if (different.length > 0 || (plan.missing.length > 0 && !options.allowMissing)) {
    throw new MediaProblems(await describeProblems(config, options, plan.missing, different, media.length), plan.missing, different);
  }
  await checkRoom(config.dataDir, plan.toCopy.reduce((sum, c) => sum + c.entry.bytes, 0) + (await fs.stat(path.join(from, DATABASE_FILE))).size);
  return plan;
}

/** The backup's database opens, passes SQLite's quick check, and holds the posts its manifest says. */
async function checkDatabase(file: string, manifest: Manifest): Promise<void> {
  if (!(await present(file)))
    throw new BackupError(`${path.dirname(file)} is not a whole backup: ${DATABASE_FILE} is missing. Restore from a whole copy of the backup folder.`);
  let verdict: string;
  let posts: number;
  try {
    const db = openReadOnly(file);
    try {
      const rows = await quickCheck(db);
      verdict = rows.map((r) => Object.values(r)[0]).join('; ');
      posts = await countPostRows(db);
    } finally {
      await db.close();
    }
  } catch (err) {
    throw new BackupError(`${file} cannot be read as a board's database (${(err as Error).message}): restore from a whole copy of the backup folder.`);
  }
  if (verdict !== 'ok') throw new BackupError(`${file} is damaged (SQLite quick_check: ${verdict.slice(0, 300)}): restore from another copy of the backup.`);
  if (posts !== manifest.posts) {
    throw new BackupError(
      `${file} holds ${posts} posts, and the backup's manifest says ${manifest.posts}: it is not the database of this backup. Restore from a whole copy of the backup folder.`,
    );
  }
}

/** What is wrong with the media and what to do, for the operator. */
async function describeProblems(config: Config, options: RestoreOptions, missing: string[], different: string[], listed: number): Promise<string> {
  const some = (rels: string[]) =>
    `${rels
      .slice(0, 10)
      .map((r) => `  ${r}\n`)
      .join('')}${rels.length > 10 ? `  ... and ${rels.length - 10} more\n` : ''}`;
  const mediaRoot = path.join(config.dataDir, 'media');
  let text = `Nothing was restored; ${config.dataDir} is as it was.\n`;
  if (missing.length > 0) {
    const where = options.mediaFrom ? `under ${options.mediaFrom} (nor already in ${mediaRoot})` : `in ${mediaRoot}`;
    text += `${missing.length} of the ${listed} media files the backup lists are not ${where}:\n${some(missing)}`;
    // A common slip: the old DATA_DIR itself rather than its media folder.
    if (options.mediaFrom && (await present(path.join(options.mediaFrom, 'media', missing[0])))) {
      text += `${options.mediaFrom} looks like a DATA_DIR: give --media-from ${path.join(options.mediaFrom, 'media')}\n`;
    }
    text += options.mediaFrom
      ? '--media-from must name the copy of DATA_DIR/media made after this backup (it holds originals/, thumbs/, ...).\n'
      : `Give --media-from DIR, the copy of DATA_DIR/media made after this backup, or copy the media into ${mediaRoot} first.\n`;
    text +=
      'Then run the same restore again. Files lost for good (posts deleted after the backup): add --allow-missing to restore without them, then run `imageboard media check --fix`.\n';
  }
  if (different.length > 0) {
    text += `${different.length} media files have other bytes than the backup lists (size or sha256):\n${some(different)}`;
    text += `Use the media copy made for this backup. A file already in ${mediaRoot} with other bytes: remove it, and --media-from copies it again.\n`;
  }
  return text.trimEnd();
}

/** The disk under DATA_DIR has room for what the restore writes. */
async function checkRoom(dataDir: string, bytes: number): Promise<void> {
  let dir = path.resolve(dataDir);
  while (!(await present(dir)) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  const fsStat = await fs.statfs(dir).catch(() => null);
  if (!fsStat) return; // a filesystem that does not say: the copy will tell
  const free = fsStat.bavail * fsStat.bsize;
  if (free < bytes) {
    throw new BackupError(
      `The restore writes ${bytes.toLocaleString('en')} bytes, and ${dir} has ${free.toLocaleString('en')} free: make room, or set DATA_DIR on a larger disk.`,
    );
  }
}

const size = async (file: string) => (await fs.stat(file).catch(() => null))?.size ?? null;

const present = (p: string) =>
  fs.access(p).then(
    () => true,
    () => false,
  );
