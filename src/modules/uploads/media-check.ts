import fs from 'node:fs/promises';
import path from 'node:path';
import { graceCutoff, tmpDirOf } from '../../config.ts';
import type { Deps } from '../../core/deps.ts';
import { imageDerivatives } from '../../media/image.ts';
import { posterFrame } from '../../media/video.ts';
import { deletePostRows } from '../posts/posts.delete.ts';
import { countPostRows } from '../../db/counters.ts';
import { unclaimed } from '../../db/queries/unclaimed-media.ts';
import { postMediaAfter } from './uploads.repo.ts';

export interface CheckReport {
  postsChecked: number;
  filesChecked: number;
  /** Posts whose original file is gone (with --fix: the post is deleted, counters kept exact). */
  rowsWithoutFiles: string[];
  /** Stored files no post or avatar refers to, and leftover temporary files (with --fix: deleted). */
  filesWithoutRows: string[];
  /** Files younger than the grace period, left alone whatever they are: an upload may be writing them. */
  recentFilesSkipped: number;
  /** Posts whose thumbnail or preview is gone (with --fix: made again from the original). */
  missingThumbnails: string[];
  fixed: boolean;
}

const BATCH = 500;

/**
 * Finds (and with fix, repairs) what a crash can leave: rows without files, files without rows,
 * missing thumbnails. Safe while the board is live: an upload writes its temp file, then its
 * stored files, then its row, so a file without a row is only an orphan once it is older than the
 * grace period (file times are the disk's wall clock, hence Date.now and not deps.clock).
 */
export async function checkMedia(deps: Deps, fix: boolean, onProgress: (postsDone: number, postsTotal: number) => void = () => {}): Promise<CheckReport> {
  const report: CheckReport = {
    postsChecked: 0,
    filesChecked: 0,
    rowsWithoutFiles: [],
    filesWithoutRows: [],
    recentFilesSkipped: 0,
    missingThumbnails: [],
    fixed: fix,
  };
  const cutoff = graceCutoff(deps.config);
  const settled = (modifiedAt: number) => modifiedAt < cutoff;
  const { db, media } = deps;
  // For progress only: posts made or deleted meanwhile make it off by a few, never wrong about the work.
  const total = await countPostRows(db);
  for (let after = 0; ; ) {
    const rows = await postMediaAfter(db, after, BATCH);
    if (rows.length === 0) break;
    after = rows[rows.length - 1].id;
    for (const p of rows) {
      report.postsChecked++;
      if (!(await media.exists(p.file_path))) {
        report.rowsWithoutFiles.push(String(p.id));
        if (fix) await removeAll(deps, await deletePostRows(db, p.id, { editorId: null, now: deps.clock.now() }));
        continue;
      }
      const missing = [p.thumb_path, p.preview_path].filter((x): x is string => Boolean(x));
      const gone = (await Promise.all(missing.map((m) => media.exists(m)))).some((ok) => !ok);
      if (!gone) continue;
      report.missingThumbnails.push(String(p.id));
      if (fix) await remakeThumbnails(deps, p);
    }
    onProgress(report.postsChecked, Math.max(total, report.postsChecked));
  }
  if (report.postsChecked > 0) onProgress(report.postsChecked, report.postsChecked);
  await checkFiles(deps, fix, report, settled);
  const tmpDir = tmpDirOf(deps.config);
  for (const f of await fs.readdir(tmpDir).catch(() => [] as string[])) {
    const stat = await fs.stat(path.join(tmpDir, f)).catch(() => null);
    if (!stat) continue; // its upload just finished
    if (!settled(stat.mtimeMs)) {
      report.recentFilesSkipped++;
      continue;
    }
    report.filesWithoutRows.push(`tmp/${f}`);
    if (fix) await fs.rm(path.join(tmpDir, f), { force: true, recursive: true });
  }
  return report;
}

/** A post's thumbnail and preview made again from its original (ffmpeg and sharp read a local copy). */
async function remakeThumbnails(
  deps: Deps,
  p: { media_type: string; duration: number | null; file_path: string; thumb_path: string; preview_path: string | null },
) {
  const { uploads } = deps.config;
  const d = await deps.media.withLocalFile(p.file_path, async (file) => {
    const source = p.media_type === 'video' ? await posterFrame({ ffmpeg: uploads.ffmpegPath, ffprobe: uploads.ffprobePath }, file, p.duration ?? 1) : file;
    return imageDerivatives(source, uploads.maxImagePixels);
  });
  await deps.media.put(p.thumb_path, d.thumb);
  if (p.preview_path) await deps.media.put(p.preview_path, d.preview);
}

async function removeAll(deps: Deps, paths: string[] | null): Promise<void> {
  for (const p of paths ?? []) await deps.media.delete(p);
}

/** Every stored file is claimed by a post (by its sha256) or a user's avatar; the rest are orphans. */
async function checkFiles(deps: Deps, fix: boolean, report: CheckReport, settled: (modifiedAt: number) => boolean): Promise<void> {
  let batch: { rel: string; modifiedAt: number }[] = [];
  const flush = async () => {
    const orphans = await unclaimed(
      deps,
      batch.map((b) => b.rel),
    );
    for (const b of batch) {
      if (!orphans.has(b.rel)) continue;
      if (!settled(b.modifiedAt)) {
        report.recentFilesSkipped++;
        continue;
      }
      report.filesWithoutRows.push(b.rel);
      if (fix) await deps.media.delete(b.rel);
    }
    batch = [];
  };
  for await (const { rel, modifiedAt } of deps.media.list()) {
    report.filesChecked++;
    batch.push({ rel, modifiedAt });
    if (batch.length >= BATCH) await flush();
  }
  await flush();
}
