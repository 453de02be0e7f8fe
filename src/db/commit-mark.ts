import fs from 'node:fs';
import type SQLite from 'better-sqlite3';

/**
 * The WAL index's header: two copies of 48 bytes at the start of the `-shm` file, which every
 * commit of every connection and process rewrites (its change counter, last frame and checksums;
 * https://www.sqlite.org/walformat.html). A checkpoint's restart of the log rewrites it too.
 */
const HEADER_BYTES = 96;

export interface CommitMarks {
  /**
   * The header as it is now, or null where it tells nothing: the connection is inside a
   * transaction (its own writes are not in the header yet), or the file cannot be read.
   */
  mark(): Buffer | null;
  close(): void;
}

/**
 * Marks of what has been committed to the SQLite file `file` (in WAL mode) that `conn` serves:
 * equal marks, nothing was committed in between, by any process. Reading one is a pread of 96
 * bytes; a statement for the same answer (a counter) takes a read transaction, whose locks are
 * two fcntl calls and a stat, several times the time.
 */
export function commitMarks(conn: SQLite.Database, file: string): CommitMarks | null {
  if (String(conn.pragma('journal_mode', { simple: true })).toLowerCase() !== 'wal') return null;
  let fd: number | null = null;
  let closed = false;
  // The WAL index is made by the connection's first transaction in WAL mode (a new file has none
  // before), and not removed while a connection (this one) has it open.
  const open = () => {
    try {
      return fs.openSync(`${file}-shm`, 'r');
    } catch {
      return null;
    }
  };
  return {
    mark() {
      if (closed || conn.inTransaction) return null;
      fd ??= open();
      if (fd === null) return null;
      const header = Buffer.allocUnsafe(HEADER_BYTES);
      return fs.readSync(fd, header, 0, HEADER_BYTES, 0) === HEADER_BYTES ? header : null;
    },
    close() {
      closed = true;
      if (fd !== null) fs.closeSync(fd);
      fd = null;
    },
  };
}
