import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Config } from './config.ts';
import { errorBody } from './core/errors.ts';
import { loggerOptions } from './core/log-format.ts';
import { RETRY_AFTER_SECONDS, unavailableOf } from './storage/unavailable.ts';
import { openDatabase, type Database } from './db/database.ts';
import { serverDatabase } from './core/deps-open.ts';

/** Waits between tries grow from the first to the last: a database back after a restart is found within the last. */
const FIRST_WAIT_MS = 250;
const LAST_WAIT_MS = 5000;
/** While waiting, a line in the log this often (the first failure is logged at once). */
const REMIND_EVERY_MS = 30_000;

/**
 * What answers on the port while the server waits for its database at start-up: /healthz 200 (the
 * process is up; an orchestrator need not restart it), /readyz 503 naming the database, as the
 * full server's does, and every other request 503 with Retry-After. Its logger is the server's
 * until the app has its own.
 */
export function waitingServer(config: Config): FastifyInstance {
  const app = Fastify({ logger: loggerOptions(config.logLevel), forceCloseConnections: true });
  const quiet = { logLevel: 'warn' } as const;
  app.get('/healthz', quiet, async (_req, reply) => reply.header('Cache-Control', 'no-store').send({ status: 'ok' }));
  app.get('/readyz', quiet, async (_req, reply) =>
    reply
      .code(503)
      .header('Cache-Control', 'no-store')
      .send({ status: 'not ready', checks: { database: { ok: false, ms: 0, error: 'not reachable yet (start-up)' } }, failing: ['database'] }),
  );
  app.setNotFoundHandler(async (_req, reply) =>
    reply
      .code(503)
      .header('Retry-After', String(RETRY_AFTER_SECONDS))
      .send(
        errorBody(503, 'The board is starting and its database is not reachable yet; try again in a few seconds', {
          unavailable: 'database',
          retryAfter: RETRY_AFTER_SECONDS,
        }),
      ),
  );
  return app;
}

/**
 * Opens the database as the app would (running or checking the migrations), and while it does not
 * answer (PostgreSQL not started yet, restarting, failing over) tries again, the waits growing
 * from FIRST_WAIT_MS to LAST_WAIT_MS, instead of ending the process. `onFirstFailure` runs once,
 * when the first try fails, and gives the logger to say so with (the server makes its waiting
 * instance then: a start-up that finds its database makes none). Failures that are not an outage
 * (a wrong password, a schema behind with MIGRATE_ON_START=false) are thrown at once. `stopped`
 * ends the wait (a signal meanwhile): then it resolves null.
 */
export async function openWhenReachable(
  config: Config,
  opts: { onFirstFailure: () => Promise<FastifyBaseLogger>; stopped: () => boolean },
): Promise<Database | null> {
  const started = Date.now();
  const seconds = () => Math.round((Date.now() - started) / 1000);
  let log: FastifyBaseLogger | null = null;
  let reminded = 0;
  for (let tries = 1, wait = FIRST_WAIT_MS; !opts.stopped(); tries++, wait = Math.min(wait * 2, LAST_WAIT_MS)) {
    try {
      const database = await openDatabase(serverDatabase(config));
      log?.info({ seconds: seconds(), tries }, 'database: reachable; starting');
      return database;
    } catch (err) {
      // SQLite is a file of this machine: an error opening it is a problem to fix, not to wait out.
      if (!config.databaseUrl || !unavailableOf(err)) throw err;
      const reason = ((err as Error).cause as Error | undefined)?.message ?? (err as Error).message;
      if (!log) {
        log = await opts.onFirstFailure();
        log.warn({ reason }, 'database: not reachable; waiting for it (/readyz answers 503 meanwhile)');
        reminded = Date.now();
      } else if (Date.now() - reminded > REMIND_EVERY_MS) {
        log.warn({ reason, seconds: seconds() }, 'database: still not reachable; waiting');
        reminded = Date.now();
      }
    }
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
  return null;
}

/**
 * Stops the waiting server's port at once, so the app can listen on it (Fastify's close takes a
 * few hundred ms, refusing connections all the while); the rest of its closing goes on meanwhile.
 */
export function closeWaiting(waiting: FastifyInstance | null): Promise<void> {
  if (!waiting) return Promise.resolve();
  if (waiting.server.listening) {
    waiting.server.close();
    waiting.server.closeAllConnections();
  }
  return waiting.close();
}
