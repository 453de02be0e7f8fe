import { fork, type ChildProcess } from 'node:child_process';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';

/**
 * WORKERS > 1 without a process that only hands out connections. The first process migrates,
 * listens and serves like a single one, and starts the others (this same script with
 * IMAGEBOARD_WORKER=1). Each new connection goes to the next process in turn, this one
 * included, as node:cluster's primary would do, except that cluster's primary serves nothing
 * and cost ~45 MB of RSS of its own (the node binary's pages and a heap). A connection stays
 * with the process it was given to. A worker that exits is started again; when the first
 * process stops (or dies), its workers finish their connections and stop too.
 */

const CONNECTION = 'imageboard:connection';
const READY = 'imageboard:ready';
const DRAIN = 'imageboard:drain';
export const WORKER_ENV = 'IMAGEBOARD_WORKER';

type Listener = (socket: Socket) => void;

/** What the first process logs to: the app's logger. */
type Log = Pick<FastifyBaseLogger, 'warn' | 'error'>;

/**
 * Whether this process is handing connections over: the first process while a connection it
 * passed to a worker has not been sent yet (Node sends one at a time, each once the worker has
 * answered for the one before), a worker for a short while after it was given one (more may
 * follow). Meanwhile requests take turns (core/turns.ts), so that both sides answer quickly.
 */
export function handingOver(): boolean {
  return unsent > 0 || performance.now() - lastTaken < HANDOVER_WINDOW_MS;
}
let unsent = 0;
let lastTaken = -Infinity;
/** Each further connection of a burst reaches a worker within a request or two of the one before. */
const HANDOVER_WINDOW_MS = 50;

/** How long the first process waits for its workers before it listens without the late ones. */
const READY_WITHIN_MS = 60_000;

/**
 * In the first process, before `server` listens: starts `count` workers and shares new
 * connections with them. `ready` resolves once every worker can serve (or after a minute, with
 * whichever can), so that the port opens with all of them in turn.
 */
export function shareConnections(
  server: Server,
  count: number,
  log: Log,
): { ready: Promise<void>; drain(): void; stop(signal?: NodeJS.Signals): Promise<void> } {
  const serve = server.listeners('connection') as Listener[];
  server.removeAllListeners('connection');
  // Connections are not read here until it is known who serves them: a worker gets the socket untouched.
  (server as Server & { pauseOnConnect: boolean }).pauseOnConnect = true;
  const serving: ChildProcess[] = [];
  const running = new Set<ChildProcess>();
  let turn = 0;
  let stopping = false;
  let draining = false;
  let allReady: () => void = () => {};
  const whenReady = new Promise<void>((resolve) => {
    allReady = resolve;
    setTimeout(() => {
      if (serving.length < count)
        log.warn(`${count - serving.length} of ${count} workers were not ready after ${READY_WITHIN_MS / 1000} s; listening without them`);
      resolve();
    }, READY_WITHIN_MS).unref();
  });

  server.on('connection', (socket: Socket) => {
    const k = turn++ % (serving.length + 1);
    if (k === serving.length) {
      for (const listener of serve) listener.call(server, socket);
      socket.resume();
      return;
    }
    unsent++;
    serving[k].send(CONNECTION, socket, (err) => {
      unsent--;
      if (err) socket.destroy();
    });
  });

  const start = () => {
    if (stopping) return;
    // glibc gives busy threads (libuv's pool, libvips on uploads) malloc arenas of their own and
    // keeps their freed memory; two arenas a worker keep much less of it (docs/benchmarks.md,
    // Memory). A value set by whoever starts the server wins (this process runs with its own).
    const child = fork(process.argv[1], process.argv.slice(2), {
      env: { ...process.env, [WORKER_ENV]: '1', MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2' },
    });
    running.add(child);
    child.on('error', (err) => log.error(`worker ${child.pid}: ${err.message}`));
    child.on('message', (msg) => {
      if (msg !== READY || stopping) return;
      // A worker started again while the others drain drains too.
      if (draining) child.send(DRAIN);
      serving.push(child);
      if (serving.length === count) allReady();
    });
    child.once('exit', (code, signal) => {
      running.delete(child);
      const at = serving.indexOf(child);
      if (at >= 0) serving.splice(at, 1);
      if (stopping) return;
      log.error(`worker ${child.pid} exited (${code ?? signal}); starting another`);
      // One that failed before it could serve (its error is above) is not restarted in a tight loop.
      setTimeout(start, at >= 0 ? 0 : 1000);
    });
  };
  for (let i = 0; i < count; i++) start();

  return {
    ready: whenReady,
    /** Tells every worker that the server is stopping: their /readyz answers 503 too, while all still serve. */
    drain() {
      draining = true;
      for (const child of running) if (child.connected) child.send(DRAIN);
    },
    /** Stops every worker with `signal`: SIGTERM once the drain delay is over (they wait no more), SIGINT to stop at once. */
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      stopping = true;
      serving.length = 0;
      const exits = [...running].map(
        (child) =>
          new Promise<void>((resolve) => {
            child.once('exit', () => resolve());
            child.kill(signal);
          }),
      );
      await Promise.all(exits);
    },
  };
}

/**
 * In a worker, once its app is ready: serves the connections the first process hands it. Drains
 * (`drain`) when that process starts to stop, and stops (`stop`) when it goes away. `drained()` resolves once every connection
 * it was given has closed.
 */
export function takeConnections(server: Server, stop: () => void, drain: () => void): { drained(): Promise<void> } {
  const open = new Set<Socket>();
  let closedAll: (() => void) | null = null;
  // What listen() would start: tracking of connections, so that request and header timeouts
  // are enforced and idle keep-alive connections close when the server does.
  server.emit('listening');
  process.on('message', (msg, socket?: Socket) => {
    if (msg === DRAIN) drain();
    if (msg !== CONNECTION || !socket) return;
    lastTaken = performance.now();
    open.add(socket);
    socket.once('close', () => {
      open.delete(socket);
      if (open.size === 0) closedAll?.();
    });
    server.emit('connection', socket);
    socket.resume();
  });
  process.once('disconnect', stop);
  process.send?.(READY);
  return {
    drained: () => (open.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => (closedAll = resolve))),
  };
}
