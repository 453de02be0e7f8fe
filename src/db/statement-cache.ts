import type SQLite from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';

/**
 * Kysely's SQLite driver prepares every statement anew; compiling the SQL is a large share of a
 * quick query's time. This keeps the most recently used prepared statements by their SQL text
 * (queries differ only in their parameters, so a few hundred cover the app). Statements run one
 * at a time: Kysely holds one connection behind a mutex.
 */
export function withStatementCache(conn: SQLite.Database, size = 500): SqliteDatabase {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => conn.close(),
    prepare(text: string) {
      let stmt = cache.get(text);
      if (stmt) {
        cache.delete(text); // most recently used goes last
      } else {
        stmt = conn.prepare(text);
        if (cache.size >= size) cache.delete(cache.keys().next().value!);
      }
      cache.set(text, stmt);
      return stmt;
    },
  };
}
