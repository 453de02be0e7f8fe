/**
 * The Danbooru import's window: it keeps a few downloads ahead of the writer without filling the
 * disk with a whole page of temporary files the writer has not reached yet. (Its requests in
 * flight are capped by core/semaphore.ts: a board counts them against our rate limit, and a file
 * download holds its slot to the last byte.)
 */

export interface WindowHooks<R> {
  /** Called once when the consumer stops before the end, before the running work is awaited (to abort it). */
  onStop(): void;
  /** A result finished but never taken (the consumer stopped first): undo what it left behind. */
  discard(result: R): Promise<void>;
}

/**
 * `work` over `inputs`, at most `ahead` started and not yet taken, each result yielded as soon as
 * it is done (not in input order: one slow file must not hold back the rest). `work` should not
 * reject; a rejection is thrown to the consumer when its turn comes.
 */
export async function* completionOrder<T, R>(inputs: Iterable<T>, ahead: number, work: (input: T) => Promise<R>, hooks: WindowHooks<R>): AsyncGenerator<R> {
  const source = inputs[Symbol.iterator]();
  const running = new Map<number, Promise<{ key: number; result?: R; error?: unknown }>>();
  let nextKey = 0;
  const startMore = () => {
    while (running.size < Math.max(1, ahead)) {
      const step = source.next();
      if (step.done) return;
      const key = nextKey++;
      running.set(
        key,
        work(step.value).then(
          (result) => ({ key, result }),
          (error: unknown) => ({ key, error: error ?? new Error('unknown failure') }),
        ),
      );
    }
  };
  try {
    startMore();
    while (running.size > 0) {
      const done = await Promise.race(running.values());
      running.delete(done.key);
      startMore();
      if (done.error !== undefined) throw done.error;
      yield done.result as R;
    }
  } finally {
    // Only an early stop (the consumer's return, or a throw) leaves work running.
    if (running.size > 0) {
      hooks.onStop();
      const left = await Promise.all(running.values());
      for (const d of left) if (d.error === undefined) await hooks.discard(d.result as R);
    }
  }
}
