import { DatabaseOutage, UNREACHABLE_CODES } from './outage.ts';

/**
 * SQLSTATEs of a server that is away or cannot take the statement now: connection exceptions
 * (class 08), an administrator's shutdown or a crash (57P01, 57P02), a server starting up or
 * shutting down (57P03), no connection slot left (53300), and a standby reached after a failover
 * that cannot write (25006).
 */
const AWAY_STATES = /^(08...|57P0[123]|53300|25006)$/;
/** pg's own words for a connection that ended, or one it could not make in time (connectionTimeoutMillis). */
const ENDED = /^(Connection terminated|Client has encountered a connection error|Client was closed|timeout exceeded when trying to connect|Connection ended)/;

/** Whether a failure of pg means the server was away, not that the statement was wrong. */
export function serverAway(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  if (typeof e?.code === 'string' && (AWAY_STATES.test(e.code) || UNREACHABLE_CODES.has(e.code))) return true;
  return typeof e?.message === 'string' && ENDED.test(e.message);
}

/** The error to throw for a failure of pg: a DatabaseOutage when the server was away (answered 503), else the failure itself. */
export function asOutage(err: unknown): unknown {
  return serverAway(err) ? new DatabaseOutage('away', { cause: err }) : err;
}
