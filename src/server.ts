import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { App } from './app.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { systemClock, type Clock } from './core/deps.ts';
import { loadMallocTrim, startMallocTrim } from './core/malloc-trim.ts';
import { hasAdmin } from './modules/users/users.repo.ts';
import { handingOver, shareConnections, takeConnections, WORKER_ENV } from './workers.ts';
import { closeWaiting, openWhenReachable, waitingServer } from './waiting.ts';
import type { FastifyInstance } from 'fastify';

/** Built by `npm run build` (scripts/build-native.mjs); src/server.ts and dist/server.js are both one level down. */
const MALLOC_TRIM_ADDON = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'native', 'build', 'malloc-trim.node');

function readConfig(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(2);
    }
    throw err;
  }
}

/**
 * One server process: serves until SIGTERM/SIGINT, then finishes in-flight requests and closes the
 * database. With WORKERS > 1 the first process also starts the others and shares connections
 * with them (workers.ts); a worker takes its connections from the first process.
 */
async function serve(config: Config, role: 'single' | 'first' | 'worker'): Promise<void> {
  const { buildApp } = await import('./app.ts');
  // A database that does not answer yet is waited for, with the port open to say so (waiting.ts).
  let waiting: FastifyInstance | null = null;
  let stoppedWaiting = false;
  const stopWaiting = () => void (stoppedWaiting = true);
  process.on('SIGTERM', stopWaiting);
  process.on('SIGINT', stopWaiting);
  const database = await openWhenReachable(config, {
    stopped: () => stoppedWaiting,
    onFirstFailure: async () => {
      const instance = waitingServer(config);
      waiting = instance;
      // A worker has no port of its own: the first process answers for it.
      if (role !== 'worker') await listen(instance, config, null);
      return instance.log;
    },
  });
  process.off('SIGTERM', stopWaiting);
  process.off('SIGINT', stopWaiting);
  if (!database) {
    await closeWaiting(waiting);
    process.exit(0);
  }
  // One process fills older posts' md5 for all (fills running at once are safe, but each would read every file).
  const app = await buildApp(config, {
    database,
    fillMd5: role !== 'worker',
    clock: testClock(),
    takeTurnsWhile: role === 'single' ? undefined : handingOver,
  });
  app.addHook('onClose', async () => database.close());
  // Tests of real processes (test/procs.test.ts) see which process answered each request.
  if (process.env.NODE_ENV === 'test') app.addHook('onSend', async (_req, reply) => void reply.header('x-served-by', String(process.pid)));
  const trimming = startMallocTrim(config.mallocTrimMs, config.mallocTrimMs > 0 ? loadMallocTrim(MALLOC_TRIM_ADDON) : null);
  if (config.mallocTrimMs > 0 && !trimming)
    app.log.info('malloc-trim is not built here (docs/deploy.md): freed malloc memory is given back only from the top of the heap');
  let workers: ReturnType<typeof shareConnections> | null = null;
  let taken: ReturnType<typeof takeConnections> | null = null;
  let stopping = false;
  let drainingSince: number | null = null;
  let endDelay = () => {};
  const drain = () => {
    drainingSince ??= Date.now();
    app.readiness.drain();
    workers?.drain();
  };
  const stop = async (signal: string) => {
    if (stopping) {
      endDelay(); // a second signal: stop now
      return;
    }
    stopping = true;
    drain();
    // SIGTERM is what orchestrators send: keep serving while /readyz says 503, so a load balancer
    // takes this instance out before its port closes. Ctrl-C (SIGINT) at a terminal stops at once.
    const delay = signal === 'SIGTERM' ? Math.max(0, config.shutdownDelayMs - (Date.now() - drainingSince!)) : 0;
    if (delay > 0) {
      app.log.info({ signal, ms: delay }, 'draining: /readyz answers 503; the port closes after the delay');
      await new Promise<void>((resolve) => {
        endDelay = resolve;
        setTimeout(resolve, delay).unref();
      });
    }
    app.log.info({ signal }, 'stopping: no new connections, finishing in-flight requests');
    const timer = setTimeout(() => {
      app.log.error('in-flight requests did not finish in time; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs);
    timer.unref();
    // After SIGTERM the workers' delay has passed too (they drain from the same moment); SIGINT stops them at once.
    await Promise.all([app.close().then(() => taken?.drained()), workers?.stop(signal === 'SIGINT' ? 'SIGINT' : 'SIGTERM')]);
    app.log.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  if (role === 'worker') {
    await closeWaiting(waiting);
    await app.ready();
    // The first process tells its workers when it starts draining, so that /readyz says 503 whichever
    // process answers; its SIGTERM comes once the delay is over.
    taken = takeConnections(app.server, () => void stop('the first process went away'), drain);
  } else {
    if (role === 'first') {
      if (config.rateLimits && !config.redisUrl) {
        app.log.warn(`WORKERS=${config.workers} without REDIS_URL: each process counts rate limits on its own`);
      }
      // Started once this one has migrated the database; the port opens when they can serve.
      workers = shareConnections(app.server, config.workers - 1, app.log);
      await workers.ready;
    }
    // Booted first, so the port is closed only for as long as it takes to open it again.
    await app.ready();
    const closed = closeWaiting(waiting);
    await listen(app, config, workers);
    await closed;
  }
  if (role !== 'worker') await firstAdminHint(app);
  // Once the port is open: what the first requests would otherwise wait for (~1 s at a million posts).
  void app.warmUp();
}

/**
 * Under NODE_ENV=test only, IMAGEBOARD_TEST_CLOCK_FILE names a file holding the time (epoch ms)
 * the clock reads. The test suites run against real processes (test/procs.ts) set it and move it
 * as they move the clock of an app in their own process, so their fixtures' dates hold.
 */
function testClock(): Clock {
  const file = process.env.NODE_ENV === 'test' ? process.env.IMAGEBOARD_TEST_CLOCK_FILE : undefined;
  return file ? { now: () => Number(readFileSync(file, 'utf8')) } : systemClock;
}

/** A new board has nobody to moderate or to set tiers: tell whoever started it how to make the first admin. */
async function firstAdminHint(app: App): Promise<void> {
  try {
    if (!(await hasAdmin(app.deps.db)))
      app.log.info('No admin account yet. Create the first one with: npx imageboard user create <name> --role admin (it asks for the password)');
  } catch (err) {
    app.log.debug({ err }, 'could not look for an admin account');
  }
}

/** Opens the port; when it cannot, says which setting to change and exits 1 (no stack trace). */
async function listen(app: FastifyInstance, config: Config, workers: { stop(): Promise<unknown> } | null): Promise<void> {
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    const problem = listenProblem(err as NodeJS.ErrnoException, config);
    if (!problem) throw err;
    console.error(problem);
    await Promise.all([app.close(), workers?.stop()]);
    process.exit(1);
  }
}

/** Why the port did not open, told as the setting to change; null for errors that are not about it. */
function listenProblem(err: NodeJS.ErrnoException, config: Config): string | null {
  const where = `${config.host}:${config.port}`;
  switch (err.code) {
    case 'EADDRINUSE':
      return `Cannot listen on ${where}: the port is already in use (another imageboard, or another program). Stop that, or choose a free port with the PORT setting, e.g. PORT=3001 npm start.`;
    case 'EACCES':
      return `Cannot listen on ${where}: not allowed (ports below 1024 need privileges). Choose another port with the PORT setting, e.g. PORT=3000 npm start.`;
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
      return `Cannot listen on ${where}: HOST=${config.host} is not an address of this machine. Set HOST=127.0.0.1 (this machine only) or HOST=0.0.0.0 (every interface).`;
    default:
      return null;
  }
}

const config = readConfig();
const role = process.env[WORKER_ENV] === '1' ? 'worker' : config.workers > 1 ? 'first' : 'single';
serve(config, role).catch((err) => {
  // An older schema with MIGRATE_ON_START=false: the message says what to run; a stack would hide it.
  console.error((err as Error).name === 'SchemaBehind' ? (err as Error).message : err);
  process.exit(1);
});
