import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMainThread, threadId, workerData } from 'node:worker_threads';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { App } from './app.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { systemClock, type Clock } from './core/deps.ts';
import { loggerOptions } from './core/log-format.ts';
import { loadMallocTrim, startMallocTrim } from './core/malloc-trim.ts';
import type { Database } from './db/database.ts';
import type { AppMetrics } from './modules/metrics/metrics.service.ts';
import type { MetricsListener } from './modules/metrics/metrics-listener.ts';
import type { ThreadMetrics } from './modules/metrics/thread-metrics.ts';
import { hasAdmin } from './modules/users/users.repo.ts';
import { keptNearest, NEAREST_CALLS, type NearestPosts } from './modules/similar/similar.service.ts';
import { createEngineCore, ENGINE_CALLS, type EngineCore } from './search/engine.ts';
import { whereSetsLive } from './search/sets/copies.ts';
import { remoteCalls, serveCalls } from './thread-calls.ts';
import { type Kept, startThreads, THREAD_ANSWERS, type ThreadData, takeOrders } from './threads.ts';
import { closeWaiting, openWhenReachable, waitingServer } from './waiting.ts';

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
 * The server: serves until SIGTERM/SIGINT, then finishes in-flight requests and closes the
 * database. Alone (WORKERS=1) the main thread serves. With WORKERS > 1 the main thread keeps the
 * search engine's core and starts the threads that serve (threads.ts); each of them runs
 * serveThread.
 */
async function serve(config: Config, role: 'single' | 'main'): Promise<void> {
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
      await listenOrExit(instance, config, async () => {});
      return instance.log;
    },
  });
  process.off('SIGTERM', stopWaiting);
  process.off('SIGINT', stopWaiting);
  if (!database) {
    await closeWaiting(waiting);
    process.exit(0);
  }
  const trimming = startMallocTrim(config.mallocTrimMs, config.mallocTrimMs > 0 ? loadMallocTrim(MALLOC_TRIM_ADDON) : null);
  if (role === 'main') return serveWithThreads(config, database, waiting, trimming !== null);

  const { buildApp } = await import('./app.ts');
  const app = await buildApp(config, { database, clock: testClock() });
  app.addHook('onClose', async () => database.close());
  servedByHeader(app);
  if (config.mallocTrimMs > 0 && !trimming) app.log.info(NO_TRIM);
  const { stop } = stopping(app, config);
  process.on('SIGTERM', () => void stop('SIGTERM').then(() => process.exit(0)));
  process.on('SIGINT', () => void stop('SIGINT').then(() => process.exit(0)));
  const metricsPort = await openMetricsPort(config, app.log, app.metrics?.text, app.metrics?.contentType);
  if (metricsPort) app.addHook('onClose', metricsPort.close);
  // Booted first, so the port is closed only for as long as it takes to open it again.
  await app.ready();
  const closed = closeWaiting(waiting);
  await listenOrExit(app, config, () => app.close());
  await closed;
  await firstAdminHint(app);
  // Once the port is open: what the first requests would otherwise wait for (~1 s at a million posts).
  void app.warmUp();
}

const NO_TRIM = 'malloc-trim is not built here (docs/deploy.md): freed malloc memory is given back only from the top of the heap';

/** The main thread with WORKERS > 1: what the serving threads share (the engine's core, the similar-image index), the threads, the signals. */
async function serveWithThreads(config: Config, database: Database, waiting: FastifyInstance | null, trimming: boolean): Promise<void> {
  const log = waiting?.log ?? logOnly(config);
  if (config.mallocTrimMs > 0 && !trimming) log.info(NO_TRIM);
  if (config.rateLimits && !config.redisUrl) log.warn(`WORKERS=${config.workers} without REDIS_URL: each thread counts rate limits on its own`);
  const sets = await whereSetsLive(database, config);
  log.info(`search sets: ${sets === 'shared' ? 'one copy, in the main thread' : 'a copy in each serving thread'} (SEARCH_SETS=${config.searchSets})`);
  const kept: Record<string, Kept> = { similar: { target: keptNearest(database), calls: NEAREST_CALLS } };
  const core = sets === 'shared' ? createEngineCore({ db: database, config, clock: testClock() }) : null;
  if (core) kept.search = { target: core, calls: ENGINE_CALLS };
  // METRICS: this thread adds up every thread's numbers and its own (modules/metrics/thread-metrics.ts); the threads ask it for the sum.
  const metrics = config.metrics.enabled ? await mainThreadMetrics(config, database, core) : null;
  let scrape = async () => '';
  if (metrics) kept.metrics = { target: { scrape: () => scrape() }, calls: ['scrape'] };
  const threads = startThreads(new URL(import.meta.url), config.workers, kept, log);
  if (metrics) scrape = (await import('./modules/metrics/thread-metrics.ts')).gatherThreads(metrics, threads.answers as ThreadMetrics[]);
  let metricsPort: MetricsListener | null = null;
  let exiting = false;
  const exit = async (code: number, signal: NodeJS.Signals = 'SIGTERM') => {
    if (exiting) return;
    exiting = true;
    if (signal === 'SIGTERM' && code === 0) {
      threads.drain();
      if (config.shutdownDelayMs > 0) {
        log.info({ signal, ms: config.shutdownDelayMs }, 'draining: /readyz answers 503; the port closes after the delay');
        await new Promise((r) => setTimeout(r, config.shutdownDelayMs).unref());
      }
    }
    log.info({ signal }, 'stopping: no new connections, finishing in-flight requests');
    const timer = setTimeout(() => {
      log.error('in-flight requests did not finish in time; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs);
    timer.unref();
    await threads.stop();
    await metricsPort?.close();
    await database.close();
    log.info('stopped');
    process.exit(code);
  };
  process.on('SIGTERM', () => void exit(0, 'SIGTERM'));
  process.on('SIGINT', () => void exit(0, 'SIGINT'));
  void threads.died.then(({ index, code }) => {
    log.error(`serving thread ${index} ended (${code}); the port closed with it: stopping the process`);
    void exit(1, 'SIGINT');
  });
  await threads.ready;
  await closeWaiting(waiting);
  metricsPort = await openMetricsPort(config, log, scrape, metrics?.contentType);
  const problem = await threads.listen();
  if (problem) {
    console.error(listenProblem(problem, config) ?? `Cannot listen: ${problem.message}`);
    await threads.stop();
    process.exit(1);
  }
  log.info(`listening on ${config.host}:${config.port} with ${config.workers} threads`);
}

/** The main thread's own registry (WORKERS > 1): the process's numbers, the job queue, and the search sets and their pool when it keeps them. */
async function mainThreadMetrics(config: Config, database: Database, core: EngineCore | null): Promise<AppMetrics> {
  const { createMetrics } = await import('./modules/metrics/metrics.service.ts');
  const metrics = createMetrics(config.mediaStore === 's3' ? 'bucket' : 'disk');
  metrics.watch({ db: database, queue: database, keptBytes: core ? core.memory : undefined });
  return metrics;
}

/**
 * METRICS_PORT: the listener that serves /metrics alone (modules/metrics/metrics-listener.ts);
 * null when metrics are off or on the board's port. One it cannot open stops the server, saying why.
 */
async function openMetricsPort(
  config: Config,
  log: Pick<FastifyBaseLogger, 'error'>,
  scrape: (() => Promise<string>) | undefined,
  contentType: string | undefined,
): Promise<MetricsListener | null> {
  if (!config.metrics.enabled || config.metrics.port === 0 || !scrape || !contentType) return null;
  const { listenForMetrics } = await import('./modules/metrics/metrics-listener.ts');
  try {
    return await listenForMetrics(config.metrics, scrape, contentType, (err) => log.error({ err }, 'metrics: a scrape failed'));
  } catch (err) {
    const where = `${config.metrics.host}:${config.metrics.port}`;
    console.error(`Cannot open the metrics listener on ${where} (METRICS_HOST, METRICS_PORT): ${(err as Error).message}`);
    process.exit(1);
  }
}

/** The server's logger where no app has one yet (the main thread; a thread waiting for its database): no routes built for it. */
const logOnly = (config: Config) => Fastify({ logger: loggerOptions(config.logLevel) }).log;

/** A thread that serves (WORKERS > 1): its own app over the main thread's engine core. */
async function serveThread(config: Config): Promise<void> {
  const { index, ports, answers } = workerData as ThreadData;
  const database = await openWhenReachable(config, {
    stopped: () => false,
    // The main thread answers for the port while the database is away.
    onFirstFailure: async () => logOnly(config),
  });
  const { buildApp } = await import('./app.ts');
  // One thread fills older posts' md5 for all (fills running at once are safe, but each would read every file).
  const app = await buildApp(config, {
    database: database!,
    fillMd5: index === 0,
    clock: testClock(),
    // Without a port to the main thread's core, this thread keeps its own (SEARCH_SETS).
    searchCore: ports.search ? remoteCalls<EngineCore>(ENGINE_CALLS, ports.search) : undefined,
    similar: remoteCalls<NearestPosts>(NEAREST_CALLS, ports.similar),
    threadMetrics: ports.metrics ? remoteCalls<{ scrape(): Promise<string> }>(['scrape'], ports.metrics) : undefined,
  });
  // The main thread asks for this thread's numbers when it is scraped.
  serveCalls({ metrics: async () => (app.metrics ? await app.metrics.json() : []) }, THREAD_ANSWERS, answers);
  answers.unref();
  app.addHook('onClose', async () => database!.close());
  servedByHeader(app);
  const { stop, drain } = stopping(app, config);
  await app.ready();
  takeOrders({
    listen: async (fd) => {
      if (fd === undefined) await app.listen({ port: config.port, host: config.host });
      else await new Promise<void>((resolve, reject) => app.server.once('error', reject).listen({ fd }, () => resolve()));
      if (index === 0) void firstAdminHint(app);
      void app.warmUp();
      return app.server;
    },
    drain,
    // The main thread tells when the drain delay is over: no more waiting here.
    stop: () => stop('the main thread'),
  }).ready();
}

/** Tests of real processes (test/procs.test.ts) see which process, and which thread of it, answered each request. */
function servedByHeader(app: FastifyInstance): void {
  const by = threadId === 0 ? String(process.pid) : `${process.pid}.${threadId}`;
  if (process.env.NODE_ENV === 'test') app.addHook('onSend', async (_req, reply) => void reply.header('x-served-by', by));
}

/**
 * How an app stops: `drain` turns /readyz to 503; `stop(signal)` drains, waits out the drain
 * delay after SIGTERM (orchestrators send it: a load balancer takes the instance out before its
 * port closes; Ctrl-C's SIGINT stops at once), then closes the app, finishing in-flight requests.
 * A second call ends the delay.
 */
function stopping(app: App, config: Config) {
  let stopped: Promise<void> | null = null;
  let drainingSince: number | null = null;
  let endDelay = () => {};
  const drain = () => {
    drainingSince ??= Date.now();
    app.readiness.drain();
  };
  const stop = (signal: string): Promise<void> => {
    if (stopped) endDelay(); // a second signal: stop now
    stopped ??= closeApp(signal);
    return stopped;
  };
  const closeApp = async (signal: string): Promise<void> => {
    drain();
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
    await app.close();
    app.log.info('stopped');
  };
  return { stop, drain };
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
async function listenOrExit(app: FastifyInstance, config: Config, close: () => Promise<unknown>): Promise<void> {
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    const problem = listenProblem(err as NodeJS.ErrnoException, config);
    if (!problem) throw err;
    console.error(problem);
    await close();
    process.exit(1);
  }
}

/** Why the port did not open, told as the setting to change; null for errors that are not about it. */
function listenProblem(err: { code?: string }, config: Config): string | null {
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
const role = !isMainThread ? 'thread' : config.workers > 1 ? 'main' : 'single';
(role === 'thread' ? serveThread(config) : serve(config, role)).catch((err) => {
  // An older schema with MIGRATE_ON_START=false: the message says what to run; a stack would hide it.
  console.error((err as Error).name === 'SchemaBehind' ? (err as Error).message : err);
  process.exit(1);
});
