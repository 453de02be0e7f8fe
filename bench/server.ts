import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildServer } from '../scripts/build-server.mjs';
import { processTree, sampleRss, type RssSampler } from './rss.ts';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((resolve, reject) => {
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', resolve);
  });
  const { port } = srv.address() as net.AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

export interface Child {
  child: ChildProcess;
  pid: number;
  origin: string;
  /** What the process wrote (kept short), for error messages. */
  output(): string;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Spawns a Node process (TypeScript through tsx, JavaScript as it is), keeping the last few KB of its output. */
export function spawnNode(script: string, args: string[], env: Record<string, string>, port: number, nodeFlags: string[] = []): Child {
  const loader = script.endsWith('.ts') ? ['--import', 'tsx'] : [];
  return spawnCommand(process.execPath, [...nodeFlags, ...loader, script, ...args], env, port);
}

/** Spawns a command that serves on `port`, keeping the last few KB of its output. */
function spawnCommand(command: string, args: string[], env: Record<string, string>, port: number): Child {
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const keep = (d: Buffer) => {
    out = (out + d.toString()).slice(-8000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return {
    child,
    pid: child.pid!,
    origin: `http://127.0.0.1:${port}`,
    output: () => out,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const tree = processTree(child.pid!);
      child.kill('SIGTERM');
      const done = await Promise.race([exited.then(() => true), sleep(15_000).then(() => false)]);
      if (!done) child.kill('SIGKILL');
      // Workers of a supervisor killed hard would be left behind: end the ones it started.
      for (const pid of tree.slice(1)) {
        try {
          process.kill(pid, 0);
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      await Promise.race([exited, sleep(5_000)]);
    },
  };
}

/** Waits until `ok()` holds, the process died, or the time is up. */
export async function waitUntil(c: Child, what: string, ok: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    if (c.child.exitCode !== null || c.child.signalCode !== null) {
      throw new Error(`${what} exited (${c.child.exitCode ?? c.child.signalCode}) before it was ready:\n${c.output()}`);
    }
    if (await ok().catch(() => false)) return;
    if (Date.now() > end) throw new Error(`${what} was not ready within ${ms / 1000} s:\n${c.output()}`);
    await sleep(100);
  }
}

export interface ServerOptions {
  dataDir: string;
  databaseUrl: string;
  workers: number;
  /** Settings beside the bench's own (`--metrics`: METRICS and its token; the events bench's limit on open streams). */
  env?: Record<string, string>;
}

/**
 * Our server as production runs it (`npm start`: compiled to dist/, then `node dist/server.js`), rate limits off. The load is
 * anonymous: visitors are shown every rating, as before VISITOR_RATINGS existed, so figures stay comparable with earlier runs.
 */
export async function startServer(o: ServerOptions): Promise<Child & { readySeconds: number; firstListSeconds: number }> {
  const port = await freePort();
  await buildServer();
  const env = {
    HOST: '127.0.0.1',
    PORT: String(port),
    DATA_DIR: o.dataDir,
    DATABASE_URL: o.databaseUrl,
    WORKERS: String(o.workers),
    RATE_LIMITS: 'off',
    VISITOR_RATINGS: 'safe,sketchy,unsafe',
    LOG_LEVEL: 'warn',
    REDIS_URL: '',
    SHUTDOWN_DELAY_MS: '0',
    NODE_ENV: 'production',
    // Off unless asked (`--metrics`), whatever the shell running the bench has set.
    METRICS: 'off',
    ...o.env,
  };
  // What `npm start` runs: dist/server.js with its Node flags and malloc settings (exec: the pid is the server's).
  const started = performance.now();
  const server = spawnCommand('sh', [path.join(ROOT, 'scripts', 'start.sh')], env, port);
  // With several threads the port opens once all of them can serve (src/threads.ts).
  await waitUntil(
    server,
    'the server',
    async () => {
      const res = await fetch(`${server.origin}/readyz`, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      return res.ok;
    },
    120_000,
  );
  const readySeconds = (performance.now() - started) / 1000;
  // The first list waits for the search's kept sets (the newest order above all): at ten million
  // posts on a cold page cache that is over a minute, longer than a sample request may take.
  const res = await fetch(`${server.origin}/api/posts`, { signal: AbortSignal.timeout(600_000) });
  await res.arrayBuffer();
  return { ...server, readySeconds, firstListSeconds: (performance.now() - started) / 1000 };
}

/** One GET on a fresh connection (so the cluster may hand it to any worker); its time in ms, or null. */
function probe(origin: string, timeoutMs: number): Promise<number | null> {
  const t = performance.now();
  return new Promise((resolve) => {
    const req = http.get(`${origin}/api`, { agent: false, timeout: timeoutMs }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode === 200 ? performance.now() - t : null));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(null));
  });
}

/**
 * Waits until the server answers a trivial request quickly on every worker: requests a run's
 * client gave up on (timeouts) may still be executing, and would slow the next run down.
 * Bounded in time.
 */
export async function drain(origin: string, workers: number, maxSeconds: number): Promise<{ seconds: number; drained: boolean }> {
  const started = performance.now();
  const end = Date.now() + maxSeconds * 1000;
  let quick = 0;
  while (Date.now() < end && quick < 2) {
    const times = await Promise.all(Array.from({ length: 2 * workers }, () => probe(origin, 5000)));
    // A second is far above an idle answer even on a busy machine, and far below a queue of slow queries.
    quick = times.every((t) => t !== null && t < 1000) ? quick + 1 : 0;
    if (quick < 2) await sleep(quick ? 50 : 250);
  }
  return { seconds: (performance.now() - started) / 1000, drained: quick >= 2 };
}

/**
 * The server under test, with its memory sampled for the whole run. Before each measured run it
 * settles: waits for abandoned requests, and restarts the server when they would take too long.
 */
export class ServerUnderTest {
  private child: Child | null = null;
  private sampler: RssSampler | null = null;
  private memory = { peakBytes: null as number | null, samples: 0, processes: 0 };
  /** The runs after which the server had to be restarted. */
  readonly restartedAfter: string[] = [];

  constructor(
    private readonly o: ServerOptions,
    private readonly log: (line: string) => void,
  ) {}

  get origin(): string {
    return this.child!.origin;
  }

  get pid(): number {
    return this.child!.pid;
  }

  /** Seconds from the first start to /readyz 200, and to the first page of the post list. */
  readySeconds: number | null = null;
  firstListSeconds: number | null = null;

  async start(): Promise<void> {
    const child = await startServer(this.o);
    this.child = child;
    this.readySeconds ??= child.readySeconds;
    this.firstListSeconds ??= child.firstListSeconds;
    this.sampler = sampleRss(this.child.pid);
  }

  async settle(after: string, maxSeconds = 60): Promise<void> {
    const { seconds, drained } = await drain(this.origin, this.o.workers, maxSeconds);
    if (drained) {
      if (seconds > 2) this.log(`(waited ${seconds.toFixed(0)} s for the server to finish requests abandoned by ${after})`);
      return;
    }
    this.log(`server still busy ${maxSeconds} s after ${after} (abandoned requests): restarting it`);
    this.restartedAfter.push(after);
    await this.stop();
    await this.start();
  }

  /** Peak RSS summed over the server's processes since the last call (for one scenario's share of the run's peak). */
  rssLap(): number | null {
    return this.sampler?.lap() ?? null;
  }

  /** Peak RSS over every server process this object started. */
  rss() {
    return { ...this.memory };
  }

  async stop(): Promise<void> {
    if (this.sampler) {
      const m = this.sampler.stop();
      this.memory = {
        peakBytes: m.peakBytes === null ? this.memory.peakBytes : Math.max(this.memory.peakBytes ?? 0, m.peakBytes),
        samples: this.memory.samples + m.samples,
        processes: Math.max(this.memory.processes, m.processes),
      };
      this.sampler = null;
    }
    await this.child?.stop();
    this.child = null;
  }
}
