import type { JobKind } from './jobs/job-kind.ts';
import { registerJobKind } from './jobs/kinds.ts';
import { implicationBackfill } from './modules/posts/implication-backfill.job.ts';
import { bulkTagsJob } from './modules/posts/posts.bulk-tags.ts';
import { aliasRetagJob, tagRenameJob } from './modules/posts/posts.retag.ts';

/** Every kind of job this version runs: registered once, where the app and the command line start. */
const BUILT_IN: JobKind[] = [aliasRetagJob, bulkTagsJob, implicationBackfill, tagRenameJob];

export function registerBuiltInJobKinds(): void {
  for (const kind of BUILT_IN) registerJobKind(kind);
}
