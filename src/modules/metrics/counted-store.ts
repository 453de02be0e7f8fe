import type { MediaStore } from '../../storage/media-store.ts';

/**
 * The media store, with each failed operation counted (storage errors, docs/deploy.md "Metrics"):
 * a full or read-only disk, a bucket away or refusing. A missing file (ENOENT) is an answer, not a
 * failure: a reader asks for files that were deleted. Errors pass through as they were.
 */
export function countedStore(store: MediaStore, failed: () => void): MediaStore {
  const counted =
    <A extends unknown[], R>(op: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await op.apply(store, args);
      } catch (err) {
        if ((err as { code?: unknown } | null)?.code !== 'ENOENT') failed();
        throw err;
      }
    };
  return {
    put: counted(store.put),
    putFile: counted(store.putFile),
    read: counted(store.read),
    delete: counted(store.delete),
    exists: counted(store.exists),
    stat: counted(store.stat),
    // A listing is walked by `media check`, not by requests: left as it is.
    list: () => store.list(),
    // What the work throws (a file sharp cannot decode) is the work's, not the store's.
    withLocalFile: async <T>(rel: string, work: (file: string) => Promise<T>): Promise<T> => {
      let thrown: unknown = null;
      try {
        return await store.withLocalFile(rel, (file) =>
          work(file).catch((err) => {
            thrown = err;
            throw err;
          }),
        );
      } catch (err) {
        if (err !== thrown && (err as { code?: unknown } | null)?.code !== 'ENOENT') failed();
        throw err;
      }
    },
    check: counted(store.check),
    close: () => store.close(),
  };
}
