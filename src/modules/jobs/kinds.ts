import { bulkTagsJob } from '../posts/posts.bulk-tags.ts';
import { aliasRetagJob, tagRenameJob } from '../posts/posts.retag.ts';
import { implicationBackfill } from '../tags/implication-backfill.job.ts';
import type { JobKind } from './job-kind.ts';

/**
 * Every kind of job this process can run, by name: the one place a kind is registered. A feature
 * writes its kind beside its service (e.g. tags/implication-backfill.job.ts) and adds it to
 * BUILT_IN; tests register kinds of their own with registerJobKind.
 *
 * A runner claims only jobs whose kind it knows, so a job of a kind this version lacks (made by a
 * newer instance during a rolling upgrade) waits for an instance that has it.
 */
const BUILT_IN: JobKind[] = [aliasRetagJob, bulkTagsJob, implicationBackfill, tagRenameJob];

const kinds = new Map<string, JobKind>();

export function registerJobKind(kind: JobKind): void {
  const known = kinds.get(kind.name);
  if (known && known !== kind) throw new Error(`two job kinds are named '${kind.name}'`);
  kinds.set(kind.name, kind);
}

export const jobKindNamed = (name: string): JobKind | undefined => kinds.get(name);

export const jobKindNames = (): string[] => [...kinds.keys()];

for (const kind of BUILT_IN) registerJobKind(kind);
