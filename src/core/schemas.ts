import type { FastifyReply } from 'fastify';
import { Type, type TSchema } from 'typebox';
import { BytePool, type JsonWriter } from './json-bytes.ts';
import type { Dependency } from '../storage/unavailable.ts';

/** A string enum that validates with `enum` so errors can list the allowed values. */
export function StringEnum<T extends string>(values: readonly T[], opts: Record<string, unknown> = {}) {
  return Type.Unsafe<T>({ type: 'string', enum: [...values], ...opts });
}

export const Id = Type.String({ description: 'Opaque identifier (digits today; treat as a string)' });
export const Timestamp = Type.String({ description: 'ISO 8601 UTC with milliseconds', examples: ['2026-11-22T10:15:30.123Z'] });
export const RelativePath = Type.String({ description: 'Relative path served by this server' });

/** Shared by several modules' routes. */
export const Message = Type.Object({ message: Type.String() });
export const PostIdParams = Type.Object({ id: Type.String({ maxLength: 32 }) });
export const UsernameParams = Type.Object({ username: Type.String({ maxLength: 64 }) });
export const RATINGS = ['safe', 'sketchy', 'unsafe'] as const;
export const MEDIA_TYPES = ['image', 'video'] as const;
export type Rating = (typeof RATINGS)[number];

export const ErrorBody = Type.Object(
  {
    error: Type.String(),
    status: Type.Integer(),
    details: Type.Optional(
      Type.Array(
        Type.Object({
          field: Type.String(),
          message: Type.String(),
          position: Type.Optional(Type.Integer({ description: 'For `q` or a blacklist entry: the character offset (from 0) of what is wrong' })),
        }),
      ),
    ),
    retryAfter: Type.Optional(Type.Integer({ description: 'Seconds to wait before trying again (429, 503, 507), as the Retry-After header says' })),
    unavailable: Type.Optional(
      StringEnum<Dependency>(['database', 'media store', 'disk'], {
        description: 'A 503 or 507: what the server could not reach or write (docs/deploy.md, Outages); the request can be sent again later',
      }),
    ),
    postId: Type.Optional(Type.String()),
    reportId: Type.Optional(Type.String({ description: 'A 409 on POST /api/reports: your open report of that post or comment' })),
    ban: Type.Optional(
      Type.Object(
        { reason: Type.String(), until: Type.Union([Timestamp, Type.Null()], { description: 'null: permanent' }) },
        { description: "A banned user's write (403): the ban in force" },
      ),
    ),
    requestId: Type.Optional(Type.String()),
  },
  { description: 'Every error: `{ error, status }`, plus details for validation errors' },
);

const ERROR_TEXT: Record<number, string> = {
  400: 'Bad input; `details` names each field',
  401: 'Not authenticated, or an invalid API key',
  403: 'Authenticated but not allowed',
  404: 'Not found',
  405: 'Wrong method for this path (see the Allow header)',
  409: 'Conflict',
  413: 'Too large',
  415: 'Unsupported media type',
  429: 'Rate limited; see Retry-After',
  500: 'Internal error (no internals are shown)',
  503: 'Over a time budget (a search), or a dependency unavailable (`unavailable` names it); see Retry-After',
  507: "The server's disk is full; see Retry-After",
};

/** Response schemas for the listed error codes, for a route's `response` map. */
export function errors(...codes: number[]): Record<number, TSchema> {
  const out: Record<number, TSchema> = {};
  for (const code of codes) out[code] = Type.Object(ErrorBody.properties, { description: ERROR_TEXT[code] ?? 'Error' });
  return out;
}

/** Content type of a response a service wrote as JSON text itself (Fastify sends such a string as it is). */
export const JSON_TEXT = 'application/json; charset=utf-8';

/**
 * Sends JSON text a service wrote itself (or its bytes). The route's response schema still documents it, but
 * types the reply as an object; this reply is taken untyped, as the text is the object already.
 */
export function sendJsonText(reply: FastifyReply, json: string | Buffer): FastifyReply {
  if (typeof json !== 'string') return sendPooled(reply, pageBytes, json);
  return reply.type(JSON_TEXT).send(json.length > LARGE_TEXT ? Buffer.from(json) : json);
}

/** Sends JSON bytes written into a buffer of `pool`, then gives the buffer back (BytePool.release: after sending). */
function sendPooled(reply: FastifyReply, pool: BytePool, json: Buffer): FastifyReply {
  reply.type(JSON_TEXT).send(json);
  pool.release(reply.raw, json);
  return reply;
}

/**
 * Past this many characters a JSON text is sent as bytes. Node writes a text body after its
 * headers as one text, and so copies a large body again (a fresh memory mapping each time) before
 * it encodes it; a Danbooru page of 200 posts is some 400 kB.
 */
const LARGE_TEXT = 64 * 1024;

const bytes = new BytePool();

/**
 * Buffers for pages of a few dozen list items written as bytes (NewestWindow): one made afresh
 * each time is memory the collector counts and frees; sendJsonText gives them back.
 */
export const pageBytes = new BytePool(32 * 1024, 32);

/** Sends JSON a service writes itself as bytes (a large answer: see BytePool and JsonWriter). */
export function sendJsonWritten(reply: FastifyReply, body: { write(w: JsonWriter): void }): FastifyReply {
  const json = bytes.json((w) => body.write(w));
  return sendPooled(reply, bytes, json);
}

export const iso = (ms: number): string => new Date(ms).toISOString();
export const isoOrNull = (ms: number | null): string | null => (ms === null ? null : iso(ms));
