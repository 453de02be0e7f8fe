import type { Tx } from '../../db/engine.ts';
import { insertChangedVersions, insertFirstVersions } from './post-versions.repo.ts';

/**
 * Runs `change` on posts whose rows the caller has locked, and records a version of each post
 * whose title, tags, rating, source or parent it changed, by `editorId` (null: the system) at
 * `now`. A post without versions first gets version 1, its fields before the change: until its
 * first change a post's row is its version 1, so uploads write none.
 */
export async function versioned<T>(trx: Tx, postIds: number[], editorId: number | null, now: number, change: () => Promise<T>): Promise<T> {
  if (postIds.length === 0) return change();
  await insertFirstVersions(trx, postIds);
  const result = await change();
  await insertChangedVersions(trx, postIds, editorId, now);
  return result;
}
