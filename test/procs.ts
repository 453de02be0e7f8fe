// Procs mode of the test suite (TEST_FLEET=procs): the PostgreSQL pass of every eachDatabase suite
// runs against two real server instances, each started as `npm start` starts it with WORKERS=2
// and a DATA_DIR of its own, behind a round-robin TCP proxy: one address, as a load balancer gives.
// See docs/architecture.md, "Tests in fleet mode with processes".
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { App } from '../src/app.ts';
import type { Config } from '../src/config.ts';
import type { Deps } from '../src/core/deps.ts';
import type { Database } from '../src/db/database.ts';
import { S3MediaStore } from '../src/storage/s3.ts';
import { sharedS3rver } from './fleet.ts';
import type { SharedClock } from './clocks.ts';
import { configEnv } from './procs-config.ts';
import { injectOverHttp, type InjectOptions } from './procs-http.ts';
import { freePort, startServer } from './server-process.ts';

const INSTANCES = 2;
const WORKERS = 2;

export interface Procs {
  /** "One address": inject() goes over HTTP through the proxy; deps are a command-line tool's (oneAddress). */
  app: App;
  /** Each instance's settings (the first is the one a suite's ctx.config shows). */
  configs: Config[];
  dataDirs: string[];
  /** The proxy's port: the one address. */
  port: number;
  /** What the server processes wrote to stdout and stderr, for a failure's message. */
  output(): string;
  /** Stops the instances and starts them again with these settings changed; ctx.app's deps.config shows them. */
  restart(changes: Partial<Config>): Promise<void>;
  /** Two more instances on the same schema and bucket, with these settings changed: close them. */
  another(changes: Partial<Config>): Promise<Procs>;
  close(): Promise<void>;
}

// Every server process this test process started, killed should an after-hook not run: on exit,
// and on the signals a test runner or a terminal sends (their default would exit without 'exit' hooks).
// Threads go with their process.
const running = new Set<number>();
let guarded = false;
function guard(): void {
  if (guarded) return;
  guarded = true;
  process.on('exit', () => {
    for (const pid of running) kill(pid, 'SIGKILL');
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      for (const pid of running) kill(pid, 'SIGTERM');
      process.exit(128 + (signal === 'SIGINT' ? 2 : 15));
    });
  }
}
function kill(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

interface Suite {
  url: string;
  schema: string;
  config: Config;
  clock: SharedClock;
  database: Database;
}

/** Starts the instances on a migrated PostgreSQL schema, their media in a bucket of this suite, and the proxy. */
export async function startProcs(suite: Suite): Promise<Procs> {
  guard();
  const { url, schema, config, clock, database } = suite;
  const s3rver = await sharedS3rver();
  const bucket = schema.replace(/_/g, '-').toLowerCase();
  // A suite that brings its own bucket (s3-media.test.ts) keeps it: it reads the bucket itself.
  const s3 = config.mediaStore === 's3' ? config.s3 : { ...s3rver.settings, bucket };
  if (config.mediaStore !== 's3') await s3rver.createBucket(bucket);
  const databaseUrl = new URL(url);
  databaseUrl.searchParams.set('options', `-c search_path=${schema}`);
  const dataDirs = Array.from({ length: INSTANCES }, () => fs.mkdtempSync(path.join(os.tmpdir(), 'imageboard-procs-')));
  let children: ChildProcess[] = [];
  let output = '';
  let proxy: Proxy | null = null;
  // Its temporary files stay out of the DATA_DIRs, which tests look into.
  const storeTmp = fs.mkdtempSync(path.join(os.tmpdir(), 'imageboard-procs-store-'));
  const store = new S3MediaStore(s3, storeTmp);
  const deps: Deps = { db: database, config, clock, media: store, startedAt: clock.now() };
  const configs: Config[] = [];

  /**
   * Starts one instance and waits until it is ready. The port freePort found may be taken before
   * the server listens (another test's client socket can be given it as its local port): then
   * the instance is started again on another one.
   */
  const launch = async (settings: Config, dataDir: string): Promise<{ instance: Config; child: ChildProcess }> => {
    for (let attempt = 1; ; attempt++) {
      const instance: Config = {
        ...settings,
        port: await freePort(),
        host: '127.0.0.1',
        dataDir,
        databaseUrl: databaseUrl.toString(),
        // The schema is migrated already; two instances starting at once need not race to check it.
        migrateOnStart: false,
        // Errors reach the output a failing test shows; requests are not logged.
        logLevel: settings.logLevel === 'silent' ? 'error' : settings.logLevel,
        workers: WORKERS,
        mediaStore: 's3',
        s3,
        redisUrl: process.env.REDIS_URL!,
        redisPrefix: `imageboard-test:${schema}:`,
        shutdownDelayMs: 0,
      };
      const { child } = await startServer({ ...configEnv(instance), IMAGEBOARD_TEST_CLOCK_FILE: clock.file });
      let own = '';
      children.push(child);
      running.add(child.pid!);
      child.on('exit', () => running.delete(child.pid!));
      const keep = (d: Buffer) => {
        output += d;
        own += d;
      };
      child.stdout.on('data', keep);
      child.stderr.on('data', keep);
      try {
        await ready(instance.port, child, () => output);
        return { instance, child };
      } catch (err) {
        if (attempt < 3 && child.exitCode !== null && own.includes('the port is already in use')) {
          children = children.filter((c) => c !== child);
          continue;
        }
        throw err;
      }
    }
  };
  /** Starts every instance with these settings (each with its own port and DATA_DIR) and waits until they are ready. */
  const start = async (settings: Config) => {
    configs.length = 0;
    children = [];
    // The first instance keeps its search sets once, in its main thread; the second, a copy a thread (SEARCH_SETS).
    const started = await Promise.all(dataDirs.map((dataDir, i) => launch({ ...settings, searchSets: i === 0 ? 'shared' : 'each' }, dataDir)));
    configs.push(...started.map((s) => s.instance));
    deps.config = Object.freeze({ ...configs[0] });
  };
  let closed: Promise<void> | null = null;
  const close = () =>
    (closed ??= (async () => {
      await proxy?.close();
      await Promise.all(children.map(stop));
      await store.close();
      for (const dir of [...dataDirs, storeTmp]) fs.rmSync(dir, { recursive: true, force: true });
    })());
  try {
    await start(config);
    proxy = await roundRobin(configs.map((c) => c.port));
  } catch (err) {
    await close();
    throw new Error(`${(err as Error).message}\n--- server output ---\n${output}`);
  }
  const port = proxy.port;
  return {
    app: oneAddress(port, deps, close),
    configs,
    dataDirs,
    port,
    output: () => output,
    // As an operator changes a setting: every instance is stopped and started again with it, on its own DATA_DIR.
    restart: async (changes) => {
      await Promise.all(children.map(stop));
      await start({ ...deps.config, ...changes });
      proxy!.ports = configs.map((c) => c.port);
    },
    another: (changes) => startProcs({ ...suite, config: { ...deps.config, ...changes } }),
    close,
  };
}

/** Waits until the instance's /readyz answers 200 (database, bucket and Redis reached). */
async function ready(port: number, child: ChildProcess, output: () => string): Promise<void> {
  const end = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`procs mode: a server process exited with ${child.exitCode} at start-up`);
    try {
      const res = await injectOverHttp(port, { url: '/readyz' });
      // Another suite's server still on the port answers too; then this one cannot listen, and
      // exits (launch starts it again on another port).
      if (res.statusCode === 200 && startedBy(child, res.headers['x-served-by'])) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > end) throw new Error(`procs mode: the server on port ${port} was not ready within a minute\n${output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Whether the process that answered (x-served-by: its pid, and the thread's id after a dot) is
 * `child`. Without the header (NODE_ENV is not test: scripts/test.mjs sets it) it cannot be told,
 * and is taken as ours.
 */
export function startedBy(child: ChildProcess, servedBy: string | string[] | undefined): boolean {
  if (typeof servedBy !== 'string') return true;
  return Number.parseInt(servedBy, 10) === child.pid;
}

/** SIGTERM (no drain delay: SHUTDOWN_DELAY_MS=0), then SIGKILL if it has not stopped in 15 s. */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => kill(child.pid!, 'SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

interface Proxy {
  port: number;
  /** Where connections go, in turn; a restart replaces them. */
  ports: number[];
  close(): Promise<void>;
}

/** A TCP proxy on 127.0.0.1 handing each new connection to the next port in turn. */
async function roundRobin(ports: number[]): Promise<Proxy> {
  let next = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    // From the client's own loopback address, so a server tells clients apart as behind a transparent proxy (procs-http.ts, loopbackFor).
    const upstream = net.connect({ port: proxy.ports[next++ % proxy.ports.length], host: '127.0.0.1', localAddress: client.remoteAddress });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      // A reset on one side ends the other: the client sees the connection close, as behind a load balancer.
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const proxy: Proxy = {
    port: (server.address() as net.AddressInfo).port,
    ports,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
  return proxy;
}

/**
 * What a suite holds as ctx.app: inject() over HTTP through the proxy. Its `deps` are what a
 * command-line tool on the same board has (src/core/deps-open.ts): the test's own connection to the
 * schema, the settings, the shared clock and the bucket; a service a test calls on them works as
 * the command line does, beside the servers. Anything else of the app lives in the server
 * processes, so asking for it fails with a message saying so.
 */
function oneAddress(port: number, deps: Deps, close: () => Promise<void>): App {
  const facade = {
    inject: (options: InjectOptions | string) => injectOverHttp(port, options),
    ready: async () => facade,
    close,
    deps,
  };
  return new Proxy(facade as Record<string, unknown>, {
    get(target, prop) {
      if (prop in target || typeof prop === 'symbol' || prop === 'then') return target[prop as string];
      throw new Error(`procs mode: ctx.app.${prop} is the app of a server process; only inject() reaches it`);
    },
  }) as unknown as App;
}
