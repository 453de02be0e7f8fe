import type SQLite from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';

/**
 * Kysely's SQLite driver prepares every statement anew; compiling the SQL is a large share of a
 * quick query's time. This keeps the most recently used prepared statements by their SQL text
 * (queries differ only in their parameters, so a few hundred cover the app). Statements run one
 * at a time: Kysely holds one connection behind a mutex. `onClose` runs before the connection
 * closes (what else was opened on its file).
 */
export function withStatementCache(
  conn: SQLite.Database,
  { size = 500, onClose = () => {} } = {},
): SqliteDatabase & { prepare(text: string): SQLite.Statement } {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => {
      onClose();
      conn.close();
    },
    prepare(text: string): SQLite.Statement {
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

/**
 * Runs a read on the connection at once, in this call, when no transaction holds it: Kysely's
 * driver would take its lock and hand the rows back through several promises, which cost a
 * quick read as much as SQLite's own work. Inside a transaction the read must wait its turn (and
 * see what the transaction wrote when it is the transaction's own): null, for Kysely to run it.
 */
export function readerNow(conn: SQLite.Database, statements: { prepare(text: string): SQLite.Statement }) {
  return (text: string, parameters: readonly unknown[]): unknown[] | null => {
    if (conn.inTransaction) return null;
    const stmt = statements.prepare(text);
    return stmt.reader ? stmt.all(parameters) : null;
  };
}
