/**
 * What the main thread keeps for the threads that serve (WORKERS > 1), called across threads: the
 * search engine's core, so the kept sets exist once however many threads serve, and anything
 * else kept once a process (the similar-image index). Each serving thread calls each on a message
 * port of its own. What crosses is plain data (engine.ts, EngineCore), and the errors a call
 * throws, made again on the other side as the same classes, so that the error handler answers as
 * it would in one thread.
 */
import type { MessagePort } from 'node:worker_threads';
import { AppError } from './core/errors.ts';
import { OverBudget } from './db/engine.ts';
import { DatabaseOutage } from './db/outage.ts';
import { QueryError } from './search/parse.ts';

/** An object whose listed methods are called across threads: they take and give plain data, and return promises. */
type Callable<T> = { [K in keyof T]: T[K] extends (...args: any[]) => Promise<unknown> ? T[K] : never };

interface Call {
  id: number;
  op: string;
  args: unknown[];
}
type Reply = { id: number; value: unknown } | { id: number; error: SentError };

type SentError =
  | { kind: 'query'; reason: string; position: number }
  | { kind: 'app'; status: number; message: string; extra: Record<string, unknown> }
  | { kind: 'budget'; ms: number }
  | { kind: 'outage'; outage: DatabaseOutage['kind']; cause: string }
  | { kind: 'other'; name: string; message: string; code?: unknown; stack?: string };

/** In the main thread: answers the calls of `ops` that come on `port` from `target`. */
export function serveCalls<T extends Callable<T>>(target: T, ops: readonly (keyof T & string)[], port: MessagePort): void {
  port.on('message', async ({ id, op, args }: Call) => {
    let reply: Reply;
    try {
      if (!ops.includes(op as keyof T & string)) throw new Error(`no such call: ${op}`);
      reply = { id, value: await (target[op as keyof T] as (...a: unknown[]) => Promise<unknown>).apply(target, args) };
    } catch (err) {
      reply = { id, error: sent(err) };
    }
    port.postMessage(reply);
  });
}

/** In a serving thread: the object in the main thread whose calls `ops` are answered on `port`. */
export function remoteCalls<T extends Callable<T>>(ops: readonly (keyof T & string)[], port: MessagePort): Pick<T, (typeof ops)[number]> {
  let next = 0;
  const waiting = new Map<number, { resolve(value: unknown): void; reject(err: Error): void }>();
  port.on('message', (reply: Reply) => {
    const call = waiting.get(reply.id);
    if (!call) return;
    waiting.delete(reply.id);
    if ('error' in reply) call.reject(received(reply.error));
    else call.resolve(reply.value);
  });
  // Calls waiting keep nothing alive: the thread lives as long as its server does.
  port.unref();
  const remote: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
  for (const op of ops)
    remote[op] = (...args) =>
      new Promise((resolve, reject) => {
        const id = next++;
        waiting.set(id, { resolve, reject });
        port.postMessage({ id, op, args } satisfies Call);
      });
  return remote as unknown as Pick<T, (typeof ops)[number]>;
}

function sent(err: unknown): SentError {
  if (err instanceof QueryError) return { kind: 'query', reason: err.reason, position: err.position };
  if (err instanceof AppError) return { kind: 'app', status: err.status, message: err.message, extra: err.extra };
  if (err instanceof OverBudget) return { kind: 'budget', ms: err.ms };
  if (err instanceof DatabaseOutage) return { kind: 'outage', outage: err.kind, cause: String((err.cause as Error)?.message ?? err.cause) };
  const e = err as { name?: string; message?: string; code?: unknown; stack?: string };
  return { kind: 'other', name: e?.name ?? 'Error', message: e?.message ?? String(err), code: e?.code, stack: e?.stack };
}

function received(e: SentError): Error {
  switch (e.kind) {
    case 'query':
      return new QueryError(e.reason, e.position);
    case 'app':
      return new AppError(e.status, e.message, e.extra);
    case 'budget':
      return new OverBudget(e.ms);
    case 'outage':
      return new DatabaseOutage(e.outage, { cause: new Error(e.cause) });
    default: {
      // The stack is the engine thread's: where the error happened, not where the call was made.
      const err = Object.assign(new Error(e.message), { name: e.name, code: e.code });
      if (e.stack) err.stack = e.stack;
      return err;
    }
  }
}
