import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isUniqueViolation, OverBudget } from '../db/engine.ts';
import { RETRY_AFTER_SECONDS, unavailableOf } from '../storage/unavailable.ts';
import { nearest } from './nearest.ts';

export interface FieldError {
  field: string;
  message: string;
}

/** An error a client can act on; mapped to `{ error, status, ...extra }` by the one error handler. */
export class AppError extends Error {
  constructor(
    public readonly status: number,
    message: string,
    public readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export const badRequest = (message: string, details?: FieldError[]): never => {
  throw new AppError(400, message, details ? { details } : {});
};
export const notFound = (what: string, id?: string): never => {
  throw new AppError(404, id === undefined ? `${what} not found` : `${what} '${id}' not found`);
};
export const unauthorized = (message = 'Authentication required'): never => {
  throw new AppError(401, message);
};
export const forbidden = (message: string): never => {
  throw new AppError(403, message);
};
export const conflict = (message: string, extra: Record<string, unknown> = {}): never => {
  throw new AppError(409, message, extra);
};

const PART_NAMES: Record<string, string> = {
  querystring: 'query parameter',
  body: 'field',
  params: 'path parameter',
  headers: 'header',
};

interface AjvIssue {
  keyword: string;
  instancePath: string;
  message?: string;
  params: Record<string, any>;
  parentSchema?: Record<string, any>;
}

function range(s: Record<string, any>): string {
  const what = s.type === 'integer' ? 'a whole number' : 'a number';
  if (s.minimum !== undefined && s.maximum !== undefined) return `${what} from ${s.minimum} to ${s.maximum}`;
  if (s.minimum !== undefined) return `${what} of at least ${s.minimum}`;
  return `${what} of at most ${s.maximum}`;
}

function lengthRange(s: Record<string, any>): string {
  if (s.minLength !== undefined && s.maxLength !== undefined) return `${s.minLength} to ${s.maxLength} characters long`;
  if (s.minLength !== undefined) return `at least ${s.minLength} characters long`;
  return `at most ${s.maxLength} characters long`;
}

/** Turns one Ajv issue into `{ field, message }` naming the field and what it accepts. */
export function describeIssue(issue: AjvIssue, part: string): FieldError {
  const path = issue.instancePath
    .replace(/^\//, '')
    .replace(/\/\d+$/, '')
    .replace(/\//g, '.');
  const p = issue.params;
  const kind = PART_NAMES[part] ?? part;
  if (path === '' && issue.keyword === 'type') {
    return { field: part, message: part === 'body' ? `the request body must be JSON ${article(p.type)}` : `${part} must be ${article(p.type)}` };
  }
  switch (issue.keyword) {
    case 'additionalProperties': {
      const hint = nearest(p.additionalProperty, Object.keys(issue.parentSchema?.properties ?? {}));
      return { field: p.additionalProperty, message: `unknown ${kind} '${p.additionalProperty}'${hint ? `; did you mean '${hint}'?` : ''}` };
    }
    case 'required':
      return { field: p.missingProperty, message: `${kind} '${p.missingProperty}' is required` };
    case 'enum':
      return { field: path, message: `${kind} '${path}' must be one of: ${p.allowedValues.join(', ')}` };
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return { field: path, message: `${kind} '${path}' must be ${range(issue.parentSchema ?? {})}` };
    case 'minLength':
    case 'maxLength':
      return { field: path, message: `${kind} '${path}' must be ${lengthRange(issue.parentSchema ?? {})}` };
    case 'pattern':
      return { field: path, message: `${kind} '${path}' ${issue.parentSchema?.['x-pattern-message'] ?? `must match ${p.pattern}`}` };
    case 'format':
      return { field: path, message: `${kind} '${path}' must be a valid ${p.format}` };
    case 'type':
      return { field: path, message: `${kind} '${path}' must be ${article(p.type)}` };
    default:
      return { field: path, message: `${kind} '${path}' ${issue.message ?? 'is invalid'}` };
  }
}

function article(type: string): string {
  if (type === 'integer') return 'a whole number';
  if (type === 'number') return 'a number';
  if (type === 'string') return 'a string';
  if (type === 'boolean') return 'true or false';
  if (type === 'array') return 'a list';
  if (type === 'object') return 'an object';
  return type;
}

export function errorBody(status: number, error: string, extra: Record<string, unknown> = {}) {
  return { error, status, ...extra };
}

/** How the routes of another board's API (route `config.compat`) answer an error: its status and body. */
export type ErrorShape = (status: number, message: string, extra: Record<string, unknown>) => { status: number; body: unknown };

const shapes = new Map<string, { shape: ErrorShape; urls?: RegExp }>();

/**
 * Another board's error shape (modules/danbooru registers Danbooru's), used by sendError on its
 * routes; `urls` names its paths for the errors raised before a route is known (a bad percent-escape).
 */
export function registerErrorShape(board: string, shape: ErrorShape, urls?: RegExp): void {
  shapes.set(board, { shape, urls });
}

function shapeOf(req: FastifyRequest): ErrorShape | undefined {
  const board = req.routeOptions?.config?.compat;
  if (board !== undefined) return shapes.get(board)?.shape;
  const path = req.url.split('?')[0];
  return [...shapes.values()].find((s) => s.urls?.test(path))?.shape;
}

/** Answers an error in the shape of the request's route: ours (errorBody), or the other board's it speaks. */
export function sendError(req: FastifyRequest, reply: FastifyReply, status: number, message: string, extra: Record<string, unknown> = {}) {
  const shape = shapeOf(req);
  if (!shape) return reply.code(status).send(errorBody(status, message, extra));
  const shaped = shape(status, message, extra);
  return reply.code(shaped.status).send(shaped.body);
}

/** A 400 naming one field (or the whole body). */
export const fieldError = (message: string, field = 'body') => new AppError(400, message, { details: [{ field, message }] });

const ENDED = 'The multipart body ended before its closing boundary';

/**
 * Errors of the multipart parser (busboy) and of @fastify/multipart, which look like the server's
 * fault, as the client's 4xx; null for others.
 */
function multipartError(err: Error & { code?: string }): AppError | null {
  switch (err.code) {
    case 'FST_MP_PREMATURE_CLOSE':
      return fieldError(ENDED);
    case 'FST_FILES_LIMIT':
      return fieldError('Too many files in the multipart body');
    case 'FST_FIELDS_LIMIT':
    case 'FST_PARTS_LIMIT':
      return fieldError('Too many fields in the multipart body');
    case 'FST_PROTO_VIOLATION':
      return fieldError('A multipart field name is not allowed');
    case 'FST_INVALID_JSON_FIELD_ERROR':
      return fieldError('A multipart field declared as JSON is not valid JSON');
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return new AppError(415, 'Send the body as multipart/form-data');
  }
  if (/unexpected end of (multipart data|form|file)|terminated early/i.test(err.message)) return fieldError(ENDED);
  if (/boundary not found|needle cannot/i.test(err.message)) return fieldError('The multipart boundary is missing or not valid', 'content-type');
  if (/malformed part header|header size limit/i.test(err.message)) return fieldError('A multipart part has a malformed header');
  return null;
}

/** When each dependency's outage was last logged: the first failure, then once every ten seconds. */
const outageLogged = new Map<string, number>();
function outageLogDue(what: string): boolean {
  const now = Date.now();
  if (now - (outageLogged.get(what) ?? 0) < 10_000) return false;
  outageLogged.set(what, now);
  return true;
}

/** The one mapping from thrown things to HTTP responses. Internals never reach the client. */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((thrown: FastifyError & { validationContext?: string }, req, reply) => {
    const err = multipartError(thrown) ?? thrown;
    if (err instanceof AppError) {
      // Every 429, whatever slowed it down, says how long to wait in the header too.
      if (err.status === 429 && typeof err.extra.retryAfter === 'number') reply.header('Retry-After', String(err.extra.retryAfter));
      return sendError(req, reply, err.status, err.message, err.extra);
    }
    if (err instanceof OverBudget) {
      // Another try may find the database less busy: say when, as a 429 does.
      reply.header('Retry-After', '5');
      return sendError(
        req,
        reply,
        503,
        `The search took longer than its time budget of ${err.ms} ms; narrow it down (a rarer tag, fewer ORs) or try again later`,
      );
    }
    const outage = unavailableOf(err);
    if (outage) {
      // Logged once a while per dependency, not per request: an outage fails every request that needs it.
      if (outageLogDue(outage.dependency)) req.log.warn({ err, unavailable: outage.dependency }, 'a dependency is unavailable: answering 503/507');
      reply.header('Retry-After', String(RETRY_AFTER_SECONDS));
      return sendError(req, reply, outage.status, outage.message, { unavailable: outage.dependency, retryAfter: RETRY_AFTER_SECONDS });
    }
    if (err.validation) {
      const part = err.validationContext ?? 'body';
      const details = err.validation.map((v) => describeIssue(v as AjvIssue, part));
      return sendError(req, reply, 400, details.map((d) => d.message).join('; '), { details });
    }
    if (isUniqueViolation(err)) return sendError(req, reply, 409, 'That already exists');
    const status = err.statusCode ?? 500;
    // Fastify's own client errors (bad JSON, body too large, wrong content type): safe to show.
    if (status >= 400 && status < 500) return sendError(req, reply, status, clientMessage(err));
    req.log.error({ err, reqId: req.id }, 'unhandled error');
    return sendError(req, reply, 500, 'Internal server error', { requestId: req.id });
  });
}

function clientMessage(err: FastifyError): string {
  if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return 'Unsupported Content-Type';
  if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return 'Request body is too large';
  if (err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return 'Body cannot be empty when Content-Type is application/json';
  if (err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err.name === 'SyntaxError') return 'Body is not valid JSON';
  return err.message;
}
