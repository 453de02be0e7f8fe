import SQLite from 'better-sqlite3';
import { SqliteDialect } from 'kysely';
import { Database } from './engine.ts';

/**
 * Copies a live SQLite database into `dest` (a new file) as it stood at one instant: VACUUM INTO
 * reads it in one read transaction, and in WAL mode the server's writers go on meanwhile.
 * The copy is compacted and in rollback-journal mode; the server turns WAL on when it opens it.
 */
export function snapshotSqlite(source: string, dest: string): void {
  const conn = new SQLite(source, { fileMustExist: true });
  try {
    conn.pragma('busy_timeout = 5000');
    conn.prepare('VACUUM INTO ?').run(dest);
  } finally {
    conn.close();
  }
}

/** A SQLite file opened read-only (a backup's snapshot): queries through Kysely, nothing written, no migration. */
export function openReadOnly(file: string): Database {
  const conn = new SQLite(file, { readonly: true, fileMustExist: true });
  return new Database({ dialect: new SqliteDialect({ database: conn }) }, 'sqlite');
}
