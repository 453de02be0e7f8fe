import { MessageChannel, type MessagePort, parentPort, Worker } from 'node:worker_threads';
import type { Server } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import { remoteCalls, serveCalls } from './thread-calls.ts';

/**
 * WORKERS > 1: threads of one process serve the port, and the main thread keeps what they all
 * ask (the similar-image index, and the search engine's core when SEARCH_SETS shares it:
 * thread-calls.ts), so what it keeps exists once however many threads serve, and the code, the heap's fixed part and the caches of a whole
 * process are not paid again for each. The first thread listens; the others listen on its socket (the same file
 * descriptor), and the kernel gives each new connection to one of the threads waiting on it: none
 * hands connections to another.
 *
 * The threads share that one descriptor, and a thread that ends closes it for all: a thread is
 * not replaced. One that dies takes the process down (exit 1) once the others have finished their
 * requests; whatever runs the server (systemd, Docker, Kubernetes) starts it again. On the way out
 * no thread closes it either: each drops the connections that still arrive, and the descriptor is
 * closed when the process exits. Closed by one thread while the others run, its number could be
 * given to a socket one of them opens next, which their event loops would still take for the port.
 */

/** From the main thread to a serving thread. */
export type ToThread = { type: 'listen'; fd?: number } | { type: 'drain' } | { type: 'stop' };
/** From a serving thread to the main thread. */
export type FromThread =
  | { type: 'ready' }
  | { type: 'listening'; fd: number }
  | { type: 'listen-failed'; error: { code?: string; message: string } }
  | { type: 'stopped' };

/** What a serving thread is given when it starts: its place, a port to each thing the main thread keeps, by name, and the port it answers the main thread on. */
export interface ThreadData {
  index: number;
  ports: Record<string, MessagePort>;
  answers: MessagePort;
}

/** What a serving thread answers when the main thread asks: its metrics, as plain data (modules/metrics/thread-metrics.ts). */
export interface ThreadAnswers {
  metrics(): Promise<unknown[]>;
}
export const THREAD_ANSWERS = ['metrics'] as const satisfies readonly (keyof ThreadAnswers)[];

/** Something the main thread keeps for the serving threads: the object, and the calls they make of it. */
export interface Kept {
  target: object;
  calls: readonly string[];
}

type Log = Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;

/**
 * In the main thread: starts `count` threads running `entry` (this process's server script), each
 * with a port to each of `kept`. `ready` resolves once every one has built its app; `listen` then opens
 * the port in the first and shares it with the others, resolving with the listen error, if any.
 * `died` resolves with the first thread that ended unasked.
 */
export function startThreads(entry: URL | string, count: number, kept: Record<string, Kept>, log: Log) {
  const threads: Worker[] = [];
  const replies = new Map<Worker, (msg: FromThread) => void>();
  let stopping = false;
  let died: (info: { index: number; code: number }) => void = () => {};
  const diedOnce = new Promise<{ index: number; code: number }>((resolve) => (died = resolve));
  const readies: Promise<void>[] = [];
  const answers: ThreadAnswers[] = [];

  for (let index = 0; index < count; index++) {
    const ports: Record<string, MessagePort> = {};
    const ours: MessagePort[] = [];
    for (const [name, { target, calls }] of Object.entries(kept)) {
      const { port1, port2 } = new MessageChannel();
      serveCalls(target as never, calls as never, port1);
      ours.push(port1);
      ports[name] = port2;
    }
    const asked = new MessageChannel();
    answers.push(remoteCalls<ThreadAnswers>(THREAD_ANSWERS, asked.port1));
    ours.push(asked.port1);
    const thread = new Worker(entry, {
      workerData: { index, ports, answers: asked.port2 } satisfies ThreadData,
      transferList: [...Object.values(ports), asked.port2],
    });
    threads.push(thread);
    readies.push(
      new Promise((resolve) => {
        replies.set(thread, (msg) => msg.type === 'ready' && resolve());
      }),
    );
    thread.on('message', (msg: FromThread) => replies.get(thread)?.(msg));
    thread.on('error', (err) => log.error({ err }, `serving thread ${index} failed`));
    thread.once('exit', (code) => {
      for (const port of ours) port.close();
      if (!stopping) died({ index, code });
    });
  }

  /** Sends `msg` to the thread and resolves with its first reply of a type in `types`. */
  const ask = (thread: Worker, msg: ToThread, types: FromThread['type'][]) =>
    new Promise<FromThread>((resolve) => {
      replies.set(thread, (reply) => types.includes(reply.type) && resolve(reply));
      thread.postMessage(msg);
    });

  return {
    ready: Promise.all(readies).then(() => undefined),
    died: diedOnce,
    /** Each thread's answers, by its index (a thread that ended answers nothing: ask with a time limit). */
    answers,
    async listen(): Promise<{ code?: string; message: string } | null> {
      const first = await ask(threads[0], { type: 'listen' }, ['listening', 'listen-failed']);
      if (first.type === 'listen-failed') return first.error;
      const fd = (first as Extract<FromThread, { type: 'listening' }>).fd;
      const rest = await Promise.all(threads.slice(1).map((t) => ask(t, { type: 'listen', fd }, ['listening', 'listen-failed'])));
      const failed = rest.find((r) => r.type === 'listen-failed');
      return failed ? (failed as Extract<FromThread, { type: 'listen-failed' }>).error : null;
    },
    /** Every thread's /readyz answers 503 from now on, while all still serve. */
    drain(): void {
      for (const t of threads) t.postMessage({ type: 'drain' } satisfies ToThread);
    },
    /** Stops every thread that is still there: each finishes its requests and closes its connections. Resolves once all have. */
    async stop(): Promise<void> {
      stopping = true;
      await Promise.all(
        threads.map((t) => (t.threadId === -1 ? undefined : Promise.race([ask(t, { type: 'stop' }, ['stopped']), new Promise((r) => t.once('exit', r))]))),
      );
    },
  };
}

/**
 * In a serving thread: takes the main thread's orders. `listen(fd)` opens the port (no fd) or
 * listens on the first thread's socket; `drain` and `stop` are the server's own.
 */
export function takeOrders(handlers: { listen(fd?: number): Promise<Server>; drain(): void; stop(): Promise<void> }): { ready(): void } {
  const port = parentPort!;
  const send = (msg: FromThread) => port.postMessage(msg);
  let server: Server | null = null;
  port.on('message', async (msg: ToThread) => {
    if (msg.type === 'listen') {
      try {
        server = await handlers.listen(msg.fd);
        send({ type: 'listening', fd: (server as Server & { _handle: { fd: number } })._handle.fd });
      } catch (err) {
        const e = err as NodeJS.ErrnoException;
        send({ type: 'listen-failed', error: { code: e.code, message: e.message } });
      }
    }
    if (msg.type === 'drain') handlers.drain();
    if (msg.type === 'stop') {
      if (server) leavePortOpen(server);
      await handlers.stop();
      send({ type: 'stopped' });
    }
  });
  return { ready: () => send({ type: 'ready' }) };
}

/**
 * Makes the server drop the connections that still arrive, and its close() leave the listening
 * socket open (see above): it closes when the process exits.
 */
function leavePortOpen(server: Server): void {
  server.maxConnections = 0;
  const handle = (server as Server & { _handle: { close(cb?: () => void): void } | null })._handle;
  if (handle) handle.close = (cb?: () => void) => cb?.();
}
