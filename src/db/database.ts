import { pgListener, threadNotices } from './notices.ts';
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { ScopedPostgresDialect } from './scoped-introspector.ts';
import { diskTrouble, SqliteDialectForDisk } from './sqlite-dialect.ts';
import { Database, DEADLINE_FUNCTION, deadlineGuard } from './engine.ts';
import { migrateToLatest, pendingMigrations, SchemaBehind } from './migrate.ts';
import { readerNow, withStatementCache } from './statement-cache.ts';
import { commitMarks } from './commit-mark.ts';
import { wrapClient } from './pg-client.ts';
import { asOutage } from './pg-outage.ts';
import { ensureStatistics } from './statistics.ts';
import { COMMIT_ORDER_FUNCTION, LOCK_FUNCTIONS } from './locks.ts';

export { Database };

export interface DatabaseOptions {
  /** postgres://... or empty for SQLite. */
  url: string;
  /** Where the SQLite file lives when url is empty. */
  dataDir: string;
  /** PostgreSQL schema to use (created if missing); tests give each run its own. */
  schema?: string;
  /** SQLite file name inside dataDir, or ':memory:'. */
  sqliteFile?: string;
  /** Tests: the last migration to run (a database as an older version left it); default all. */
  lastMigration?: string;
  /** PostgreSQL: connections this process keeps at most (DATABASE_POOL_SIZE). */
  poolSize?: number;
  /**
   * 'run' (default): run the migrations it lacks. 'check': run none, and throw SchemaBehind when
   * some are missing. 'none': neither (the migrate command runs them itself, and says which).
   */
  migrations?: 'run' | 'check' | 'none';
}

/** How long making a PostgreSQL connection may take before the request that needs it is answered 503. */
const CONNECT_TIMEOUT_MS = 5000;

/** pg, loaded only for PostgreSQL (a SQLite server never needs it: ~10 MB less per process). */
async function loadPg() {
  const pg = (await import('pg')).default;
  // COUNT(*) and BIGINT columns (times in ms) come back from pg as strings; all fit in a double.
  pg.types.setTypeParser(20, (v) => Number(v));
  pg.types.setTypeParser(1700, (v) => Number(v));
  return pg;
}

export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  const database = opts.url ? await openPostgres(opts.url, opts.schema, opts.poolSize) : openSqlite(opts);
  try {
    const mode = opts.migrations ?? 'run';
    if (mode === 'run') await migrateToLatest(database, database.engine, opts.lastMigration);
    if (mode === 'check') {
      const pending = await pendingMigrations(database, database.engine);
      if (pending.length > 0) throw new SchemaBehind(pending);
    }
    if (mode !== 'none' && database.engine === 'sqlite') await ensureStatistics(database);
  } catch (err) {
    await database.close();
    throw err;
  }
  return database;
}

/** Runs the migrations the database lacks; returns their names (none: it was up to date). */
export async function migrate(database: Database): Promise<string[]> {
  const applied = await migrateToLatest(database, database.engine);
  if (database.engine === 'sqlite') await ensureStatistics(database);
  return applied;
}

/** The SQLite file the options name. */
export const sqlitePath = (opts: DatabaseOptions) => path.join(opts.dataDir, opts.sqliteFile ?? 'imageboard.db');

/** Which database the options name, for people: the SQLite file, or the PostgreSQL URL without its password. */
export function databaseLabel(opts: DatabaseOptions): string {
  if (!opts.url) return `SQLite ${sqlitePath(opts)}`;
  try {
    const u = new URL(opts.url);
    u.password = '';
    return `PostgreSQL ${u.toString()}`;
  } catch {
    return 'PostgreSQL (DATABASE_URL)';
  }
}

/** Where the options put the board, as a sentence names it ("Seeded SQLite at ...", without the PostgreSQL URL). */
export function databasePlace(opts: DatabaseOptions): string {
  return opts.url ? 'the PostgreSQL database' : `SQLite at ${sqlitePath(opts)}`;
}

/**
 * Whether the database already holds a board (opening one that does not creates it, empty). SQLite:
 * the file exists. PostgreSQL: the schema has the users table; a database that does not exist at
 * all (3D000) is not one either.
 */
export async function databaseExists(opts: DatabaseOptions): Promise<boolean> {
  if (!opts.url) return fs.existsSync(sqlitePath(opts));
  const pg = await loadPg();
  const client = new pg.Client({ connectionString: opts.url });
  try {
    await client.connect();
  } catch (err) {
    if ((err as { code?: string }).code === '3D000') return false;
    throw err;
  }
  try {
    const table = opts.schema ? `${opts.schema}.users` : 'users';
    const { rows } = await client.query<{ found: boolean }>('select to_regclass($1) is not null as found', [table]);
    return rows[0].found;
  } finally {
    await client.end();
  }
}

function openSqlite(opts: DatabaseOptions): Database {
  const file = opts.sqliteFile ?? 'imageboard.db';
  let target = file;
  if (file !== ':memory:') {
    fs.mkdirSync(opts.dataDir, { recursive: true });
    target = sqlitePath(opts);
  }
  const conn = openConnection(target, opts.dataDir);
  conn.pragma('synchronous = NORMAL');
  conn.pragma('foreign_keys = ON');
  conn.pragma('busy_timeout = 5000');
  // 2 MB a connection: a post's row is one read of a leaf page from the OS's cache whatever the
  // size, and the pages above them stay cached. 8 MB cost as much CPU a request and ~10 MB more
  // RSS a process (docs/benchmarks.md, Memory).
  conn.pragma('cache_size = -2048');
  // Sorts and GROUP BYs past the cache spill to a file: in memory, the one that builds the rating
  // sets at a million posts grew each process's malloc heap by ~35 MB, which it never gave back.
  conn.pragma('temp_store = FILE');
  conn.function(DEADLINE_FUNCTION, { deterministic: false }, deadlineGuard());
  for (const name of LOCK_FUNCTIONS) conn.function(name, { deterministic: false }, (_key: unknown) => null);
  conn.function(COMMIT_ORDER_FUNCTION, { deterministic: false }, () => null);
  const marks = file === ':memory:' ? null : commitMarks(conn, target);
  const statements = withStatementCache(conn, { onClose: () => marks?.close() });
  const dialect = new SqliteDialectForDisk({ database: statements }, conn, opts.dataDir);
  const use = () => ({ max: 1, inUse: dialect.use.inUse, idle: 1 - dialect.use.inUse, waiting: dialect.use.waiting });
  return new Database({ dialect }, 'sqlite', readerNow(conn, statements), marks?.mark, threadNotices(target), use);
}

/** A connection to the file, in WAL mode; a disk that is full or read-only stops here with a message saying so. */
function openConnection(target: string, dir: string): SQLite.Database {
  let conn: SQLite.Database | null = null;
  try {
    conn = new SQLite(target);
    conn.pragma('journal_mode = WAL');
    return conn;
  } catch (err) {
    conn?.close();
    const disk = diskTrouble(err, dir);
    if (!disk) throw err;
    const fix = disk.kind === 'disk full' ? 'the disk is full: free some space' : 'the disk is read-only: make it writable';
    throw new Error(`Cannot open the database ${target}: ${fix}, then start again`, { cause: err });
  }
}

async function openPostgres(url: string, schema?: string, poolSize = 10): Promise<Database> {
  const pg = await loadPg();
  if (schema) {
    if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`bad schema name ${schema}`);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    } finally {
      await admin.end();
    }
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    // A server that does not answer (a host gone, a network cut) fails the request within this,
    // as Unavailable, instead of holding it for the system's TCP timeout; keep-alive finds such
    // connections dead while they sit in the pool.
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    keepAlive: true,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  pool.on('connect', wrapClient);
  // An idle connection the server ended (a restart, a failover): the pool has already dropped it
  // and connects anew when asked; /readyz says whether the server is back. Without a listener
  // the event would end the process.
  pool.on('error', () => {});
  const connect = () =>
    pool.connect().catch((err: unknown) => {
      throw asOutage(err);
    });
  const listen = pgListener(pg.Client, { connectionString: url, keepAlive: true, ...(schema ? { options: `-c search_path=${schema}` } : {}) });
  const use = () => ({ max: poolSize, inUse: pool.totalCount - pool.idleCount, idle: pool.idleCount, waiting: pool.waitingCount });
  return new Database({ dialect: new ScopedPostgresDialect({ pool: { connect, end: () => pool.end() } }) }, 'postgres', undefined, undefined, { listen }, use);
}

/** Drops a test schema and everything in it. */
export async function dropPostgresSchema(url: string, schema: string): Promise<void> {
  const pg = await loadPg();
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await admin.end();
  }
}
