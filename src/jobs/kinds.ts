import type { JobKind, JobRef } from './job-kind.ts';

/**
 * Every kind of job this process can run, by name. A feature writes its kind beside its service
 * (e.g. posts/implication-backfill.job.ts); src/job-kinds.ts registers them all where the app is
 * put together; tests register kinds of their own with registerJobKind.
 *
 * A runner claims only jobs whose kind it knows, so a job of a kind this version lacks (made by a
 * newer instance during a rolling upgrade) waits for an instance that has it.
 */
const kinds = new Map<string, JobKind>();

export function registerJobKind(kind: JobKind): void {
  const known = kinds.get(kind.name);
  if (known && known !== kind) throw new Error(`two job kinds are named '${kind.name}'`);
  kinds.set(kind.name, kind);
}

export const jobKindNamed = (name: string): JobKind | undefined => kinds.get(name);

export const jobKindNames = (): string[] => [...kinds.keys()];

/** The registered kind `ref` names (a JobKind is its own). */
export function kindOf<P>(ref: JobRef<P>): JobKind<P> {
  if ('step' in ref) return ref as JobKind<P>;
  const kind = kinds.get(ref.name);
  if (!kind) throw new Error(`no job kind '${ref.name}' is registered (src/job-kinds.ts registers every kind)`);
  return kind;
}
