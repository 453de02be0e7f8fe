import fs from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../../config.ts';
import { sqlitePath } from '../../db/database.ts';
import type { Database } from '../../db/engine.ts';
import { openReadOnly, snapshotSqlite } from '../../db/snapshot.ts';
import {
  BackupError,
  DATABASE_FILE,
  FORMAT,
  formatMediaList,
  hashFile,
  MANIFEST,
  MEDIA_LIST,
  VERSION,
  type Manifest,
  type MediaEntry,
} from './backup-format.ts';
import { countPostRows } from '../../db/counters.ts';
import * as repo from './backup.repo.ts';

const BATCH = 1000;

/** Every media file a database refers to (posts' and held uploads' originals, thumbnails and previews; avatars), sorted. */
export async function referencedMedia(db: Database): Promise<string[]> {
  const rels = new Set<string>();
  for (let after = 0; ; ) {
    const rows = await repo.postMediaAfter(db, after, BATCH);
    if (rows.length === 0) break;
    after = rows[rows.length - 1].id;
    for (const r of rows) for (const rel of [r.file_path, r.thumb_path, r.preview_path]) if (rel) rels.add(rel);
  }
  const avatars = await repo.listAvatarPaths(db);
  for (const a of avatars) rels.add(a.avatar_path!);
  // Uploads waiting for approval: few (a moderation queue), read at once.
  for (const r of await repo.listPendingPosts(db)) {
    const p = JSON.parse(r.post) as { file_path: string; thumb_path: string; preview_path: string | null };
    for (const rel of [p.file_path, p.thumb_path, p.preview_path]) if (rel) rels.add(rel);
  }
  return [...rels].sort();
}

/**
 * Writes a backup of the live board in config.dataDir to the folder `dest`: the database as it stood
 * at one instant, and the list of media files it refers to with their sizes and hashes. Built
 * under a temporary name beside `dest` and renamed into place, so `dest` is whole or absent.
 */
export async function createBackup(config: Config, dest: string, onProgress: (done: number, total: number) => void = () => {}): Promise<Manifest> {
  const target = path.resolve(dest);
  if (await exists(target)) throw new BackupError(`${target} already exists: choose a new name (a backup never overwrites)`);
  const partial = `${target}.partial-${process.pid}`;
  await fs.mkdir(partial, { recursive: true });
  try {
    snapshotSqlite(sqlitePath({ url: '', dataDir: config.dataDir }), path.join(partial, DATABASE_FILE));
    const snapshot = openReadOnly(path.join(partial, DATABASE_FILE));
    let rels: string[];
    let posts: number;
    try {
      rels = await referencedMedia(snapshot);
      posts = await countPostRows(snapshot);
    } finally {
      await snapshot.close();
    }
    const mediaRoot = path.join(config.dataDir, 'media');
    const entries: MediaEntry[] = [];
    const missingMedia: string[] = [];
    for (const [i, rel] of rels.entries()) {
      try {
        entries.push({ rel, ...(await hashFile(path.join(mediaRoot, rel))) });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        missingMedia.push(rel);
      }
      if (i % 50 === 49 || i === rels.length - 1) onProgress(i + 1, rels.length);
    }
    const manifest: Manifest = {
      format: FORMAT,
      version: VERSION,
      createdAt: new Date().toISOString(),
      database: DATABASE_FILE,
      posts,
      mediaFiles: entries.length,
      mediaBytes: entries.reduce((sum, e) => sum + e.bytes, 0),
      missingMedia,
    };
    await fs.writeFile(path.join(partial, MEDIA_LIST), formatMediaList(entries));
    await fs.writeFile(path.join(partial, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
    await fs.rename(partial, target);
    return manifest;
  } catch (err) {
    await fs.rm(partial, { recursive: true, force: true });
    throw err;
  }
}

export const exists = (p: string) =>
  fs.access(p).then(
    () => true,
    () => false,
  );
