// Procs mode of the test suite (TEST_FLEET=procs): the PostgreSQL pass of every eachDatabase suite
// runs against two real server instances, each started as `npm start` starts it with WORKERS=2
// and a DATA_DIR of its own, behind a round-robin TCP proxy: one address, as a load balancer gives.
// See docs/architecture.md, "Tests in fleet mode with processes".
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { App } from '../src/app.ts';
import type { Config } from '../src/config.ts';
import { S3MediaStore } from '../src/storage/s3.ts';
import { sharedS3rver } from './fleet.ts';
import type { SharedClock } from './helpers.ts';
import { configEnv } from './procs-config.ts';
import { injectOverHttp, type InjectOptions } from './procs-http.ts';
import { freePort, serverBuilt } from './server-process.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const INSTANCES = 2;
const WORKERS = 2;

export interface Procs {
  /** "One address": inject() goes over HTTP through the proxy; deps holds only `media` (the bucket). */
  app: App;
  /** Each instance's settings (the first is the one a suite's ctx.config shows). */
  configs: Config[];
  dataDirs: string[];
  /** The proxy's port: the one address. */
  port: number;
  /** What the server processes wrote to stdout and stderr, for a failure's message. */
  output(): string;
  close(): Promise<void>;
}

// Every server process this test process started, killed should an after-hook not run: on exit,
// and on the signals a test runner or a terminal sends (their default would exit without 'exit' hooks).
// A first process stopped so takes its workers with it (they stop when it goes away).
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

/** Starts the instances on a migrated PostgreSQL schema, their media in a bucket of this suite, and the proxy. */
export async function startProcs({ url, schema, config, clock }: { url: string; schema: string; config: Config; clock: SharedClock }): Promise<Procs> {
  guard();
  const s3rver = await sharedS3rver();
  const bucket = schema.replace(/_/g, '-').toLowerCase();
  // A suite that brings its own bucket (s3-media.test.ts) keeps it: it reads the bucket itself.
  const s3 = config.mediaStore === 's3' ? config.s3 : { ...s3rver.settings, bucket };
  if (config.mediaStore !== 's3') await s3rver.createBucket(bucket);
  const databaseUrl = new URL(url);
  databaseUrl.searchParams.set('options', `-c search_path=${schema}`);
  const dataDirs = Array.from({ length: INSTANCES }, () => fs.mkdtempSync(path.join(os.tmpdir(), 'imageboard-procs-')));
  const children: ChildProcess[] = [];
  let output = '';
  let proxy: Proxy | null = null;
  const store = new S3MediaStore(s3, path.join(dataDirs[0], 'test-store'));
  const close = async () => {
    await proxy?.close();
    await Promise.all(children.map(stop));
    await store.close();
    for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    await serverBuilt();
    const configs: Config[] = [];
    for (const dataDir of dataDirs) {
      const instance: Config = {
        ...config,
        port: await freePort(),
        host: '127.0.0.1',
        dataDir,
        databaseUrl: databaseUrl.toString(),
        // The schema is migrated already; two instances starting at once need not race to check it.
        migrateOnStart: false,
        // Errors reach the output a failing test shows; requests are not logged.
        logLevel: config.logLevel === 'silent' ? 'error' : config.logLevel,
        workers: WORKERS,
        mediaStore: 's3',
        s3,
        redisUrl: process.env.REDIS_URL!,
        redisPrefix: `imageboard-test:${schema}:`,
        shutdownDelayMs: 0,
      };
      configs.push(instance);
      const child = spawn('sh', [path.join(ROOT, 'scripts', 'start.sh')], {
        cwd: ROOT,
        env: { ...process.env, ...configEnv(instance), IMAGEBOARD_TEST_CLOCK_FILE: clock.file },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      running.add(child.pid!);
      child.on('exit', () => running.delete(child.pid!));
      child.stdout!.on('data', (d) => (output += d));
      child.stderr!.on('data', (d) => (output += d));
      children.push(child);
    }
    await Promise.all(configs.map((c, i) => ready(c.port, children[i], () => output)));
    proxy = await roundRobin(configs.map((c) => c.port));
    const app = oneAddress(proxy.port, store);
    return { app, configs, dataDirs, port: proxy.port, output: () => output, close };
  } catch (err) {
    await close();
    throw new Error(`${(err as Error).message}\n--- server output ---\n${output}`);
  }
}

/** Waits until the instance's /readyz answers 200 (database, bucket and Redis reached). */
async function ready(port: number, child: ChildProcess, output: () => string): Promise<void> {
  const end = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`procs mode: a server process exited with ${child.exitCode} at start-up`);
    try {
      if ((await injectOverHttp(port, { url: '/readyz' })).statusCode === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > end) throw new Error(`procs mode: the server on port ${port} was not ready within a minute\n${output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
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
  close(): Promise<void>;
}

/** A TCP proxy on 127.0.0.1 handing each new connection to the next port in turn. */
async function roundRobin(ports: number[]): Promise<Proxy> {
  let next = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(ports[next++ % ports.length], '127.0.0.1');
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
  return {
    port: (server.address() as net.AddressInfo).port,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

/**
 * What a suite holds as ctx.app: inject() over HTTP through the proxy. `deps.media` is a store on
 * the suite's bucket (the test helpers read media through it); anything else of the app lives in
 * the server processes and is out of reach, so asking for it fails with a message saying so.
 */
function oneAddress(port: number, media: S3MediaStore): App {
  const facade = {
    inject: (options: InjectOptions | string) => injectOverHttp(port, options),
    ready: async () => facade,
    close: async () => {},
    deps: new Proxy({ media } as Record<string, unknown>, {
      get(target, prop) {
        if (prop in target || typeof prop === 'symbol' || prop === 'then') return target[prop as string];
        throw new Error(`procs mode: ctx.app.deps.${prop} lives in the server processes`);
      },
    }),
  };
  return new Proxy(facade as Record<string, unknown>, {
    get(target, prop) {
      if (prop in target || typeof prop === 'symbol' || prop === 'then') return target[prop as string];
      throw new Error(`procs mode: ctx.app.${prop} is the app of a server process; only inject() reaches it`);
    },
  }) as unknown as App;
}
