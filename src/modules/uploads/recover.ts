import fs from 'node:fs/promises';
import path from 'node:path';
import { graceCutoff, tmpDirOf } from '../../config.ts';
import type { Deps } from '../../core/deps.ts';
import { journalPaths } from '../../storage/media-journal.ts';
import { ownerGone } from '../../storage/owner.ts';
import { unclaimed } from '../../db/queries/unclaimed-media.ts';

export interface Recovered {
  tempFiles: number;
  journals: number;
  mediaFiles: number;
}

/**
 * At start-up, clears what a killed process left in DATA_DIR/tmp: its uploads' temporary files,
 * and its media journals, whose files are removed unless a row claims them (an upload killed after
 * storing its files and before its row; a delete killed after its row and before its files).
 * Files of processes still running, here or on another host sharing the disk, are left alone
 * until they are older than the grace period.
 */
export async function recoverInterrupted(deps: Pick<Deps, 'db' | 'config' | 'media'>): Promise<Recovered> {
  const done: Recovered = { tempFiles: 0, journals: 0, mediaFiles: 0 };
  const tmpDir = tmpDirOf(deps.config);
  const oldest = graceCutoff(deps.config);
  for (const name of await fs.readdir(tmpDir).catch(() => [] as string[])) {
    const file = path.join(tmpDir, name);
    if (!ownerGone(name, true)) {
      const stat = await fs.stat(file).catch(() => null);
      if (!stat || stat.mtimeMs >= oldest) continue;
    }
    if (name.endsWith('.pending')) {
      const orphans = await unclaimed(deps, await journalPaths(file));
      for (const rel of orphans) await deps.media.delete(rel);
      done.mediaFiles += orphans.size;
      done.journals++;
    } else {
      done.tempFiles++;
    }
    await fs.rm(file, { force: true, recursive: true });
  }
  return done;
}
