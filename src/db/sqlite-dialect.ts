import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type SQLite from 'better-sqlite3';
import { SqliteDialect, SqliteDriver, type CompiledQuery, type DatabaseConnection, type Driver, type SqliteDialectConfig } from 'kysely';
import { DatabaseOutage } from './outage.ts';

/**
 * Kysely's SQLite dialect, for a disk that cannot be written (full, or gone read-only):
 * - its ROLLBACK is skipped when SQLite has already rolled the transaction back itself, as it does
 *   on SQLITE_FULL and I/O errors: a ROLLBACK then fails with "cannot rollback - no transaction is
 *   active", which Kysely would throw in place of the error that says what happened;
 * - SQLite's I/O errors say which disk trouble they stand for (diskTrouble).
 * `dir` is the folder of the database file.
 */
export class SqliteDialectForDisk extends SqliteDialect {
  /** The one connection: whether a statement or transaction holds it, and how many wait for it (Database.connections). */
  readonly use = { inUse: 0, waiting: 0 };

  constructor(
    private readonly config: SqliteDialectConfig,
    private readonly conn: SQLite.Database,
    private readonly dir: string,
  ) {
    super(config);
  }

  override createDriver(): Driver {
    return new SqliteDriverForDisk(this.config, this.conn, this.dir, this.use);
  }
}

class SqliteDriverForDisk extends SqliteDriver {
  private connection: DatabaseConnection | null = null;

  constructor(
    config: SqliteDialectConfig,
    private readonly conn: SQLite.Database,
    private readonly dir: string,
    private readonly use: { inUse: number; waiting: number },
  ) {
    super(config);
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    this.use.waiting++;
    let inner: DatabaseConnection;
    try {
      inner = await super.acquireConnection();
    } finally {
      this.use.waiting--;
    }
    this.use.inUse++;
    const dir = this.dir;
    // One connection, as the driver has: its statements run in the call (better-sqlite3 is synchronous), so they throw there.
    this.connection ??= {
      executeQuery<R>(query: CompiledQuery) {
        try {
          return inner.executeQuery<R>(query);
        } catch (err) {
          throw diskTrouble(err, dir) ?? err;
        }
      },
      streamQuery: (query, chunkSize) => inner.streamQuery(query, chunkSize),
    };
    return this.connection;
  }

  override async releaseConnection(): Promise<void> {
    this.use.inUse--;
    await super.releaseConnection();
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (this.conn.inTransaction) await super.rollbackTransaction(connection);
  }
}

/**
 * What a failed write of SQLite's stands for when its code does not say: SQLite reports a file
 * system gone read-only (EROFS) as SQLITE_IOERR_WRITE, and a full disk met where it does not say
 * SQLITE_FULL (growing the WAL index) as another SQLITE_IOERR; the disk holding the database tells
 * which. Null otherwise (the code says enough, core/unavailable.ts maps it).
 */
export function diskTrouble(err: unknown, dir: string): DatabaseOutage | null {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !/^SQLITE_(IOERR|READONLY|CANTOPEN)/.test(code)) return null;
  // A file made and removed: ext4 gone read-only on an error refuses writes with EROFS while
  // access() still says the folder can be written.
  const probe = path.join(dir, `.write-probe-${process.pid}-${randomBytes(6).toString('hex')}`);
  try {
    fs.closeSync(fs.openSync(probe, 'wx'));
    fs.rmSync(probe, { force: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EROFS') return new DatabaseOutage('disk read-only', { cause: err });
    fs.rmSync(probe, { force: true });
  }
  try {
    if (fs.statfsSync(dir).bavail === 0) return new DatabaseOutage('disk full', { cause: err });
  } catch {}
  return null;
}
