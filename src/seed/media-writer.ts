import { Worker } from 'node:worker_threads';
import type { BaseBytes, MediaJob } from './media-files.ts';

type Reply = { id: number; files: number; bytes: number } | { id: number; error: string };

interface Pending {
  done: Promise<void>;
  resolve(): void;
  reject(err: Error): void;
}

function pending(): Pending {
  let resolve!: () => void;
  let reject!: (err: Error) => void;
  const done = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  done.catch(() => {}); // reported by close() or the next write(), not as an unhandled rejection
  return { done, resolve, reject };
}

/**
 * Batches queued before write() waits for the worker. A job is only an id, a base number and a
 * hash (the worker rebuilds the bytes), so a long queue costs little and lets the database work
 * run ahead of the slower file system instead of waiting on it.
 */
const MAX_IN_FLIGHT = 256;

/**
 * Writes media files on a worker thread while the main thread fills the database, so the two
 * costs overlap instead of adding up. The worker runs TypeScript, so it registers tsx first.
 */
export class MediaWriter {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private failure: Error | null = null;
  files = 0;
  bytes = 0;

  constructor(
    mediaDir: string,
    bases: BaseBytes[],
    private readonly onWritten: (files: number) => void = () => {},
  ) {
    const tsx = import.meta.resolve('tsx/esm/api');
    const entry = new URL('./media-writer.worker.ts', import.meta.url).href;
    const code = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`;
    this.worker = new Worker(code, { eval: true, workerData: { mediaDir, bases } });
    this.worker.on('message', (reply: Reply) => this.settle(reply));
    this.worker.on('error', (err) => this.fail(err));
    this.worker.on('exit', (code) => {
      if (this.pending.size > 0) this.fail(new Error(`media writer stopped (exit code ${code}) with work outstanding`));
    });
  }

  /** Queues a batch; waits only when too many are already queued. */
  async write(jobs: MediaJob[]): Promise<void> {
    if (this.failure) throw this.failure;
    if (jobs.length === 0) return;
    while (this.pending.size >= MAX_IN_FLIGHT) await this.pending.values().next().value!.done;
    const id = this.nextId++;
    this.pending.set(id, pending());
    this.worker.postMessage({ id, jobs });
  }

  /** Waits for every queued batch, then stops the worker. */
  async close(): Promise<void> {
    for (const entry of [...this.pending.values()]) await entry.done;
    if (this.failure) throw this.failure;
    await this.worker.terminate();
  }

  /** Stops at once; used when seeding fails. */
  async abort(): Promise<void> {
    await this.worker.terminate();
  }

  private settle(reply: Reply): void {
    const entry = this.pending.get(reply.id);
    this.pending.delete(reply.id);
    if ('error' in reply) {
      this.fail(new Error(`writing media failed: ${reply.error}`), entry);
      return;
    }
    this.files += reply.files;
    this.bytes += reply.bytes;
    this.onWritten(this.files);
    entry?.resolve();
  }

  private fail(err: Error, entry?: Pending): void {
    this.failure ??= err;
    entry?.reject(err);
    for (const other of this.pending.values()) other.reject(err);
    this.pending.clear();
  }
}
