import http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type AppError, errorBody, fieldError, sendError } from './errors.ts';

/**
 * What reaches the server before (or beside) a route: Node's HTTP parser, Fastify's router and a
 * body the route did not read. Every answer here is the same `{ error, status }` JSON as a route's.
 */

/** Bytes of an unread request body discarded after an early error answer before the socket is closed. */
export const DRAIN_LIMIT_BYTES = 32 * 1024 * 1024;

const PARSER_STATUS: Record<string, number> = {
  HPE_HEADER_OVERFLOW: 431,
  ERR_HTTP_REQUEST_TIMEOUT: 408,
  ERR_HTTP_HEADERS_TIMEOUT: 408,
};

function rawAnswer(socket: Socket, status: number, message: string): void {
  const body = JSON.stringify(errorBody(status, message));
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** Node's HTTP parser refused the request (bad request line or header, headers too large, too slow). */
export function clientErrorHandler(this: FastifyInstance, err: NodeJS.ErrnoException & { reason?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const status = PARSER_STATUS[err.code ?? ''] ?? 400;
  const message =
    status === 431
      ? 'Request headers are too large'
      : status === 408
        ? 'The request took too long to arrive'
        : `Malformed HTTP request: ${err.reason ?? err.message}`;
  this.log.debug({ err }, 'client error');
  if (socket.writable) rawAnswer(socket, status, message);
  socket.destroySoon();
}

/** Errors Fastify's router raises before any route runs (a bad percent-escape, an over-long parameter). */
export function frameworkErrors(err: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  const status = err.statusCode ?? 400;
  const message =
    err.code === 'FST_ERR_BAD_URL'
      ? 'The path is not valid: a percent-escape does not decode to UTF-8'
      : err.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? 'A path segment is too long'
        : err.message;
  sendError(req, reply, status, message);
}

/** U+0000 and lone surrogates: PostgreSQL cannot store them, and no name or text needs them. */
// With the u flag a surrogate pair is one code point, so only unpaired halves match the range.
const UNSTORABLE = /[\0\uD800-\uDFFF]/u;

function unstorable(value: string): boolean {
  return UNSTORABLE.test(value);
}

/**
 * The dotted path of the first string in `value` (keys included) that cannot be stored, or null.
 * Walked with a stack of its own: a hostile body may nest arrays deeper than the call stack.
 */
export function firstUnstorable(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  const stack: [unknown, string][] = [[value, '']];
  while (stack.length > 0) {
    const [v, at] = stack.pop()!;
    if (typeof v === 'string') {
      if (unstorable(v)) return at;
    } else if (typeof v === 'object' && v !== null) {
      for (const [key, child] of Object.entries(v)) {
        const name = Array.isArray(v) ? at : at ? `${at}.${key}` : key;
        if (unstorable(key)) return name;
        stack.push([child, name]);
      }
    }
  }
  return null;
}

export function unstorableError(kind: string, field: string): AppError {
  const message = `${kind} '${field}' contains a NUL character or an unpaired surrogate, which cannot be stored`;
  return fieldError(message, field);
}

const PARTS = [
  ['params', 'path parameter'],
  ['query', 'query parameter'],
  ['body', 'field'],
] as const;

/**
 * Refuses text that cannot be stored before validation, for every route, so both engines answer
 * alike (SQLite would store a NUL where PostgreSQL fails).
 */
function refuseUnstorable(app: FastifyInstance): void {
  app.addHook('preValidation', (req, _reply, done) => {
    for (const [part, kind] of PARTS) {
      const field = firstUnstorable(req[part]);
      if (field !== null) return done(unstorableError(kind, field || part));
    }
    done();
  });
}

/**
 * An error answered before the request body was read (too large, not signed in): the client, or a
 * reverse proxy, may write the whole body before it reads, and a socket closed under it turns our
 * answer into a reset (a proxy's 502). Discard the rest of the body, up to DRAIN_LIMIT_BYTES, and
 * keep the connection until it has arrived.
 */
function drainUnreadBodies(app: FastifyInstance): void {
  app.addHook('onSend', (req, reply, payload, done) => {
    const raw = req.raw;
    if (raw.complete || reply.statusCode < 400) return done(null, payload);
    // Fastify asks to close after a body it could not parse; Node would then close at once.
    if (reply.getHeader('connection') === 'close') reply.removeHeader('connection');
    let drained = 0;
    raw.on('data', (chunk: Buffer) => {
      drained += chunk.length;
      if (drained > DRAIN_LIMIT_BYTES) raw.socket?.destroy();
    });
    raw.on('error', () => undefined);
    raw.resume();
    done(null, payload);
  });
}

/**
 * What Node's HTTP server would answer itself, without a body: an HTTP/1.1 request without a Host
 * header (Node's own check is off: `requireHostHeader: false` in app.ts) and an `Expect:` other
 * than 100-continue (Node's 417 unless someone listens for checkExpectation).
 */
function refuseLikeNode(app: FastifyInstance): void {
  app.addHook('onRequest', (req, reply, done) => {
    if (req.raw.httpVersion === '1.1' && req.headers.host === undefined) {
      reply.header('Connection', 'close');
      return void sendError(req, reply, 400, 'An HTTP/1.1 request needs a Host header');
    }
    done();
  });
  app.server.on('checkExpectation', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const body = JSON.stringify(errorBody(417, `Expect: '${String(req.headers.expect).slice(0, 100)}' is not supported; only 100-continue is`));
    res.writeHead(417, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body), Connection: 'close' });
    res.end(body);
  });
}

export function installHttpEdge(app: FastifyInstance): void {
  refuseLikeNode(app);
  refuseUnstorable(app);
  drainUnreadBodies(app);
}
