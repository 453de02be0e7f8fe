import { ConfigError, loadConfig, type Config } from './config.ts';
import { shareConnections, takeConnections, WORKER_ENV } from './workers.ts';

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
  const app = await buildApp(config);
  let workers: ReturnType<typeof shareConnections> | null = null;
  let taken: ReturnType<typeof takeConnections> | null = null;
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'stopping: no new connections, finishing in-flight requests');
    const timer = setTimeout(() => {
      app.log.error('in-flight requests did not finish in time; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs);
    timer.unref();
    await Promise.all([app.close().then(() => taken?.drained()), workers?.stop()]);
    app.log.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  if (role === 'worker') {
    await app.ready();
    taken = takeConnections(app.server, () => void stop('the first process went away'));
  } else {
    if (role === 'first') {
      if (config.rateLimits && !config.redisUrl) {
        app.log.warn(`WORKERS=${config.workers} without REDIS_URL: each process counts rate limits on its own`);
      }
      // Started once this one has migrated the database; the port opens when they can serve.
      workers = shareConnections(app.server, config.workers - 1, app.log);
      await workers.ready;
    }
    await app.listen({ port: config.port, host: config.host });
  }
  void warmUp(app);
}

/**
 * Loads what the first requests would otherwise wait for (the in-memory newest order behind deep
 * pages and date counts: ~1 s at a million posts; the tag lists) by asking for it, once the
 * server listens. Failures only cost that wait later.
 */
async function warmUp(app: { inject(o: { url: string }): PromiseLike<unknown>; log: { debug(o: object, m: string): void } }) {
  for (const url of ['/api/posts?offset=10000&limit=1', '/api/tags?sortBy=trending&timeRange=week&limit=1']) {
    try {
      await app.inject({ url });
    } catch (err) {
      app.log.debug({ err, url }, 'warm-up request failed');
    }
  }
}

const config = readConfig();
const role = process.env[WORKER_ENV] === '1' ? 'worker' : config.workers > 1 ? 'first' : 'single';
serve(config, role).catch((err) => {
  console.error(err);
  process.exit(1);
});
