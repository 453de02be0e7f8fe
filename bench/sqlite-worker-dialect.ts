import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';

/**
 * A Kysely dialect whose SQLite connection runs on a worker thread, for the dataset builder: the
 * main thread makes the next batch of rows while the worker inserts the last one, so generating
 * and inserting take a core each instead of adding up on one. Writes (INSERT, UPDATE, DELETE
 * without RETURNING) are queued and not waited for; anything that returns rows, and a
 * transaction's begin and end, waits for everything before it. A failed write fails the next
 * statement that waits, and every one after it.
 */

/** Writes queued at most before a write waits: each is a batch of up to 32,000 values. */
const MAX_QUEUED = 8;

type Reply = { id: number; rows: unknown[]; changes?: number; insertId?: number } | { id: number; error: string };

/** The worker: one connection, its pragmas, statements run in the order they came. Plain JS: it needs no loader. */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const SQLite = require(workerData.module);
const conn = new SQLite(workerData.file);
conn.unsafeMode(true);
let failed = null;
try {
  for (const [pragma, expect] of workerData.pragmas) {
    const got = conn.pragma(pragma, { simple: true });
    if (expect !== undefined && String(got).toLowerCase() !== expect) throw new Error('SQLite refused ' + pragma + ' (got ' + got + ')');
  }
} catch (err) {
  failed = String(err.message);
}
const statements = new Map();
parentPort.on('message', (m) => {
  if (m.close) {
    conn.close();
    parentPort.postMessage({ id: m.id, rows: [] });
    return;
  }
  if (failed) return parentPort.postMessage({ id: m.id, error: failed });
  try {
    let stmt = statements.get(m.sql);
    if (!stmt) statements.set(m.sql, (stmt = conn.prepare(m.sql)));
    if (stmt.reader) return parentPort.postMessage({ id: m.id, rows: stmt.all(m.params) });
    const r = stmt.run(m.params);
    parentPort.postMessage({ id: m.id, rows: [], changes: r.changes, insertId: Number(r.lastInsertRowid) });
  } catch (err) {
    failed = String(err.message) + ' (in: ' + m.sql.slice(0, 200) + ')';
    parentPort.postMessage({ id: m.id, error: failed });
  }
});
`;

/** The worker's side, as the main thread sees it: send a statement, and wait for its reply or not. */
class SqliteWorker {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, { resolve(r: Reply): void; reject(err: Error): void; write: boolean }>();
  private nextId = 0;
  private queued = 0;
  private roomMade: (() => void) | null = null;
  private failure: Error | null = null;

  constructor(file: string, pragmas: [string, string?][]) {
    const module = createRequire(import.meta.url).resolve('better-sqlite3');
    this.worker = new Worker(WORKER, { eval: true, workerData: { module, file, pragmas } });
    this.worker.on('message', (reply: Reply) => this.settle(reply));
    this.worker.on('error', (err) => this.fail(err));
    this.worker.on('exit', (code) => this.fail(new Error(`the SQLite worker stopped (exit code ${code})`)));
  }

  /** Runs `sql`; with `wait`, resolves with its rows once it ran, else once it is queued. */
  async run(sql: string, params: readonly unknown[], wait: boolean): Promise<QueryResult<unknown>> {
    if (this.failure) throw this.failure;
    const id = this.nextId++;
    const reply = new Promise<Reply>((resolve, reject) => this.waiting.set(id, { resolve, reject, write: !wait }));
    reply.catch(() => {}); // a write's failure is told by the next statement that waits
    this.worker.postMessage({ id, sql, params, close: false });
    if (!wait) {
      this.queued++;
      while (this.queued > MAX_QUEUED && !this.failure) await new Promise<void>((resolve) => (this.roomMade = resolve));
      if (this.failure) throw this.failure;
      return { rows: [] };
    }
    const r = await reply;
    if ('error' in r) throw new Error(r.error);
    return {
      rows: r.rows,
      numAffectedRows: r.changes === undefined ? undefined : BigInt(r.changes),
      insertId: r.insertId === undefined ? undefined : BigInt(r.insertId),
    };
  }

  async close(): Promise<void> {
    if (this.failure) {
      await this.worker.terminate();
      return;
    }
    const id = this.nextId++;
    const done = new Promise<Reply>((resolve, reject) => this.waiting.set(id, { resolve, reject, write: false }));
    this.worker.postMessage({ id, close: true });
    await done;
    this.worker.removeAllListeners('exit');
    await this.worker.terminate();
  }

  private settle(reply: Reply): void {
    const w = this.waiting.get(reply.id);
    this.waiting.delete(reply.id);
    if ('error' in reply && !this.failure) this.failure = new Error(reply.error);
    w?.resolve(reply);
    if (w?.write) {
      this.queued--;
      this.wake();
    }
  }

  private fail(err: Error): void {
    this.failure ??= err;
    for (const w of this.waiting.values()) w.reject(this.failure);
    this.waiting.clear();
    this.wake();
  }

  private wake(): void {
    const wake = this.roomMade;
    this.roomMade = null;
    wake?.();
  }
}

const isWrite = (sql: string) => /^\s*(insert|update|delete|replace)\b/i.test(sql) && !/\breturning\b/i.test(sql);

/** The one connection, handed to one user at a time (as Kysely's own SQLite driver does). */
class WorkerDriver implements Driver {
  private worker: SqliteWorker | null = null;
  private connection: DatabaseConnection | null = null;
  private held: Promise<void> = Promise.resolve();
  private release: () => void = () => {};

  constructor(
    private readonly file: string,
    private readonly pragmas: [string, string?][],
  ) {}

  async init(): Promise<void> {
    const worker = new SqliteWorker(this.file, this.pragmas);
    this.worker = worker;
    this.connection = {
      executeQuery: <R>(q: CompiledQuery) => worker.run(q.sql, q.parameters, !isWrite(q.sql)) as Promise<QueryResult<R>>,
      streamQuery: () => {
        throw new Error('the SQLite worker does not stream');
      },
    };
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const before = this.held;
    this.held = new Promise<void>((resolve) => (this.release = resolve));
    await before;
    return this.connection!;
  }

  async beginTransaction(conn: DatabaseConnection): Promise<void> {
    await conn.executeQuery(CompiledQuery.raw('begin'));
  }

  async commitTransaction(conn: DatabaseConnection): Promise<void> {
    await conn.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(conn: DatabaseConnection): Promise<void> {
    await conn.executeQuery(CompiledQuery.raw('rollback'));
  }

  async releaseConnection(): Promise<void> {
    this.release();
  }

  async destroy(): Promise<void> {
    await this.worker?.close();
  }
}

/** SQLite on a worker thread: the file, and the pragmas its connection runs first (each with the value it must answer, if any). */
export class WorkerSqliteDialect implements Dialect {
  constructor(
    private readonly file: string,
    private readonly pragmas: [string, string?][] = [],
  ) {}

  createDriver(): Driver {
    return new WorkerDriver(this.file, this.pragmas);
  }

  createQueryCompiler() {
    return new SqliteQueryCompiler();
  }

  createAdapter() {
    return new SqliteAdapter();
  }

  createIntrospector(db: Kysely<any>) {
    return new SqliteIntrospector(db);
  }
}
