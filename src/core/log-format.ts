import { Writable } from 'node:stream';
import { type FastifyReply, type FastifyRequest, type FastifyServerOptions, LogController } from 'fastify';
import { stdoutLog } from './log-destination.ts';

/**
 * The server's log: pino's JSON lines, one a request (OneLineARequest), where something collects them
 * (a file, journald, a log shipper); on a terminal the same lines made readable, so that a person
 * starting the board sees "12:04:31 INFO  No admin account yet. ..." and not a wall of JSON.
 */

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
/** pino's own fields, and those a request line says in its own words. */
const SHOWN_APART = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'reqId', 'req', 'res', 'responseTime', 'v', 'err']);

const pad = (n: number) => String(n).padStart(2, '0');

/** One JSON log line as a person reads it: time, level, message, then the other fields as key=value. */
export function readableLine(json: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json);
  } catch {
    return json;
  }
  const at = new Date(typeof entry.time === 'number' ? entry.time : Date.now());
  const time = `${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}`;
  const level = (LEVELS[entry.level as number] ?? String(entry.level)).padEnd(5);
  const req = entry.req as { method?: string; url?: string } | undefined;
  const res = entry.res as { statusCode?: number } | undefined;
  let text = String(entry.msg ?? '');
  if (req && res) text = `${req.method} ${req.url} ${res.statusCode} ${Number(entry.responseTime ?? 0).toFixed(1)} ms`;
  const rest = Object.entries(entry)
    .filter(([k]) => !SHOWN_APART.has(k))
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
  // An error's stack on the lines after, where a person looks for it; its message is the stack's first line.
  const err = entry.err as { message?: string; stack?: string } | string | undefined;
  const stack = typeof err === 'string' ? `  err=${err}` : err ? `\n${err.stack ?? err.message}` : '';
  return `${time} ${level} ${text}${rest.length ? `  ${rest.join(' ')}` : ''}${stack}`;
}

/** A stream taking pino's JSON lines and writing them readable to `out`. */
export function readableStream(out: NodeJS.WritableStream): Writable {
  let partial = '';
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) if (line) out.write(`${readableLine(line)}\n`);
      done();
    },
  });
}

/**
 * Fastify's logger options: to `stream` when given (tests read it), else to stdout, readable when
 * stdout is a terminal and JSON otherwise (through stdoutLog, which a full disk does not stop).
 */
export function loggerOptions(level: string, stream?: NodeJS.WritableStream, stdout: NodeJS.WriteStream = process.stdout): FastifyServerOptions['logger'] {
  if (stream) return { level, stream };
  return stdout.isTTY ? { level, stream: readableStream(stdout) } : { level, stream: stdoutLog() };
}

/**
 * One log line a request, when it is answered, with the request in it (method, path, client),
 * instead of Fastify's two ("incoming request", then "request completed" without the request).
 * A route's logLevel (the health checks' warn) keeps its requests out, as before.
 */
export class OneLineARequest extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}
