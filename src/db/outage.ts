/**
 * The database failing for no fault of the statement: the server away (PostgreSQL restarting,
 * failing over, unreachable), or the disk under SQLite full or gone read-only. Thrown here, where
 * the engines' errors are read (pg-outage.ts, sqlite-dialect.ts); core/unavailable.ts answers it
 * (503, or 507 for a full disk). src/db/ imports nothing from outside it, so the class is its own.
 */
export class DatabaseOutage extends Error {
  constructor(
    readonly kind: 'away' | 'disk full' | 'disk read-only',
    options: ErrorOptions,
  ) {
    super(`the database cannot be used now: ${kind}`, options);
    this.name = 'DatabaseOutage';
  }
}

/** The socket's failures when a server is not there or not reachable: refused, reset, timed out, no route, no such host. */
export const UNREACHABLE_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
