/**
 * What a request needed that is not there now (the database, the media store, room on the disk):
 * the request is answered 503, or 507 for a full disk, with Retry-After, never 500, and the
 * process goes on. src/storage/ throws these; src/db/ throws its own DatabaseOutage (it imports
 * nothing from outside src/db/), which unavailableOf reads as one; core/errors.ts maps them.
 */
import { DatabaseOutage } from '../db/outage.ts';

export { UNREACHABLE_CODES } from '../db/outage.ts';

export type Dependency = 'database' | 'media store' | 'disk';

/** Seconds a client is told to wait before trying again. */
export const RETRY_AFTER_SECONDS = 5;

export class Unavailable extends Error {
  constructor(
    /** What is missing, as the answer names it (`unavailable` in its body). */
    readonly dependency: Dependency,
    /** What the client is told. */
    message: string,
    readonly status: 503 | 507 = 503,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'Unavailable';
  }
}

export const databaseUnavailable = (cause?: unknown) =>
  new Unavailable('database', 'The database is unavailable right now; try again in a few seconds', 503, { cause });

export const mediaUnavailable = (cause?: unknown) =>
  new Unavailable('media store', 'The media store is unavailable right now; try again in a few seconds', 503, { cause });

const diskFull = (cause: unknown) => new Unavailable('disk', "The server's disk is full: nothing can be written until an operator frees space", 507, { cause });

const readOnly = (dependency: Dependency, cause: unknown) =>
  new Unavailable(
    dependency,
    `The ${dependency === 'disk' ? "server's disk" : dependency} cannot be written right now (it is read-only); reading still works`,
    503,
    {
      cause,
    },
  );

/**
 * The Unavailable an error stands for, or null. Besides those thrown as such: SQLite's codes for a
 * full disk, a file it may not write and a database held too long by another writer, and the
 * system's for a full or read-only disk (temporary files, media on local disk). These codes say
 * what happened wherever they come from; a refused connection does not (it could be any
 * dependency), so the database and the bucket throw Unavailable themselves.
 */
export function unavailableOf(err: unknown): Unavailable | null {
  if (err instanceof Unavailable) return err;
  if (err instanceof DatabaseOutage) {
    if (err.kind === 'away') return databaseUnavailable(err.cause);
    return err.kind === 'disk full' ? diskFull(err.cause) : readOnly('disk', err.cause);
  }
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return null;
  if (code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT') return diskFull(err);
  if (code.startsWith('SQLITE_READONLY')) return readOnly('database', err);
  if (code === 'EROFS') return readOnly('disk', err);
  if (code === 'SQLITE_BUSY' || code.startsWith('SQLITE_IOERR') || code === 'SQLITE_CANTOPEN') return databaseUnavailable(err);
  return null;
}
