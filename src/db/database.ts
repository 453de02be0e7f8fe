import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { ScopedPostgresDialect } from './scoped-introspector.ts';
import type { DB } from './types.ts';
import type { DialectName } from './dialect.ts';
import { migrateToLatest } from './migrate.ts';
import { withStatementCache } from './statement-cache.ts';
import { ensureStatistics } from './statistics.ts';

export interface Database {
  db: Kysely<DB>;
  dialect: DialectName;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** postgres://... or empty for SQLite. */
  url: string;
  /** Where the SQLite file lives when url is empty. */
  dataDir: string;
  /** PostgreSQL schema to use (created if missing); tests give each run its own. */
  schema?: string;
  /** SQLite file name inside dataDir, or ':memory:'. */
  sqliteFile?: string;
}

/** pg, loaded only for PostgreSQL (a SQLite server never needs it: ~10 MB less per process). */
async function loadPg() {
  const pg = (await import('pg')).default;
  // COUNT(*) and BIGINT columns (times in ms) come back from pg as strings; all fit in a double.
  pg.types.setTypeParser(20, (v) => Number(v));
  pg.types.setTypeParser(1700, (v) => Number(v));
  return pg;
}

export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  const database = opts.url ? await openPostgres(opts.url, opts.schema) : openSqlite(opts);
  await migrateToLatest(database.db, database.dialect);
  if (database.dialect === 'sqlite') await ensureStatistics(database.db);
  return database;
}

function openSqlite(opts: DatabaseOptions): Database {
  const file = opts.sqliteFile ?? 'imageboard.db';
  let target = file;
  if (file !== ':memory:') {
    fs.mkdirSync(opts.dataDir, { recursive: true });
    target = path.join(opts.dataDir, file);
  }
  const conn = new SQLite(target);
  conn.pragma('journal_mode = WAL');
  conn.pragma('synchronous = NORMAL');
  conn.pragma('foreign_keys = ON');
  conn.pragma('busy_timeout = 5000');
  conn.pragma('cache_size = -8192');
  conn.pragma('temp_store = MEMORY');
  const db = new Kysely<DB>({ dialect: new SqliteDialect({ database: withStatementCache(conn) }) });
  return {
    db,
    dialect: 'sqlite',
    async close() {
      await db.destroy();
    },
  };
}

async function openPostgres(url: string, schema?: string): Promise<Database> {
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
    max: 10,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  const db = new Kysely<DB>({ dialect: new ScopedPostgresDialect({ pool }) });
  return {
    db,
    dialect: 'postgres',
    async close() {
      await db.destroy();
    },
  };
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
