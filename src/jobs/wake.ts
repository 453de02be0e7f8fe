import type { Database } from '../db/engine.ts';

/**
 * Runners of this process waiting for work on a database. A job made here wakes them at once;
 * runners of other processes and instances find it when they next look (runner.ts).
 */
const waiting = new WeakMap<Database, Set<() => void>>();

export function onJobCreated(db: Database, wake: () => void): () => void {
  let set = waiting.get(db);
  if (!set) waiting.set(db, (set = new Set()));
  set.add(wake);
  return () => set.delete(wake);
}

export function wakeJobRunners(db: Database): void {
  for (const wake of waiting.get(db) ?? []) wake();
}
