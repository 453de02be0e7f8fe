import cluster from 'node:cluster';
import { ConfigError, loadConfig, type Config } from './config.ts';

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

/** One server process: serves until SIGTERM/SIGINT, then finishes in-flight requests and closes the database. */
async function serve(config: Config): Promise<void> {
  const { buildApp } = await import('./app.ts');
  const app = await buildApp(config);
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
    await app.close();
    app.log.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  await app.listen({ port: config.port, host: config.host });
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

/**
 * WORKERS > 1: this process forks that many servers sharing the port (SQLite in WAL mode lets
 * them read at once). The first one migrates the database as it starts; the others are forked
 * once it listens, so no two migrate at once. The supervisor itself loads no app or database
 * code and stays small. SIGTERM is passed on; it exits when they have.
 */
function supervise(config: Config): void {
  if (config.rateLimits && !config.redisUrl) {
    console.warn(`WORKERS=${config.workers} without REDIS_URL: each worker counts rate limits on its own`);
  }
  let stopping = false;
  let started = false;
  // glibc gives busy threads (libuv's pool, libvips on uploads) malloc arenas of their own and
  // keeps their freed memory: two arenas a worker took the benchmark's peak RSS (two workers and
  // this process) from 388 MB to 359 MB in the same short run. A value set by whoever starts the
  // server wins.
  const fork = () => cluster.fork({ MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2' });
  fork();
  cluster.on('listening', () => {
    if (started || stopping) return;
    started = true;
    for (let i = 1; i < config.workers; i++) fork();
  });
  cluster.on('exit', (worker, code) => {
    if (!started && !stopping) {
      // The first worker failed before it listened (bad settings, a failed migration): its
      // message is above; starting it again would only repeat it.
      console.error(`worker ${worker.process.pid} exited with ${code} before it started listening`);
      process.exit(1);
    }
    if (!stopping && code !== 0) {
      console.error(`worker ${worker.process.pid} exited with ${code}; starting another`);
      fork();
    }
    if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
  });
  const stop = () => {
    stopping = true;
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

const config = readConfig();
const main = config.workers > 1 && cluster.isPrimary ? Promise.resolve(supervise(config)) : serve(config);
main.catch((err) => {
  console.error(err);
  process.exit(1);
});
