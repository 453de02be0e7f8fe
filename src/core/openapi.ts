import type { FastifyInstance } from 'fastify';
import swagger, { type SwaggerTransform } from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { API_VERSION } from '../version.ts';
import { docsPageOptions } from './docs-page.ts';

const DESCRIPTION = `
The image board's REST API. All bodies are JSON (UTF-8) except uploads (multipart).

Conventions:
- Identifiers are opaque strings. Timestamps are ISO 8601 UTC with milliseconds.
- Media and avatar URLs are paths served by this server (\`/media/...\`), or absolute URLs when the board
  keeps its media behind a public address of their own (a CDN or a bucket).
- Success: 200 for reads, updates and deletes; 201 when something is created.
- Every error is \`{ error, status }\`; validation errors add \`details: [{ field, message }]\`.
- Unknown query parameters and bad values are refused with 400 naming the parameter and what it accepts.
- An unknown route is 404; a known path with the wrong method is 405 with an \`Allow\` header.

Authentication: anonymous, a session (cookie \`ib_session\`, from POST /api/auth/login or register),
or an API key in the \`X-API-Key\` header. An invalid, revoked or expired key is 401 on every endpoint.
A key may be limited to scopes (each operation names the one it needs, \`x-api-key-scope\`), a time and
client addresses: a request outside them is 403 naming the missing scope or the address.
Cookie-authenticated writes whose \`Origin\` names another site are refused (403).
A banned user still reads, but every write of theirs (POST, PUT, PATCH, DELETE, by session or by
any of their keys; signing in and out and changing the password apart) is 403, with a message naming
the ban's reason and end and the ban as \`ban: { reason, until }\` (\`until\` null: permanent).

Rate limits (per minute unless said): GET /api/posts, /api/posts/{id}, /api/tags, /api/pools and
/api/users/{username}: 50; GET /api/public/status: 30; POST /api/upload and POST /api/comments: 10
per user; each API-key endpoint: 5 per user; login and register: 10; everything else: 60.
Anonymous and session reads count per client IP (IPv6 per /64); session writes count per user;
requests with an API key count per user, plus the tier's hourly budget over all endpoints
(free 30, basic 200, pro 1,000, enterprise 5,000). A window starts at the first request and lasts
a minute (an hour for the budget). Every API response carries \`X-RateLimit-Limit\`,
\`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\` (whole seconds until that window resets) for the
tightest window that applies; a 429 adds \`Retry-After\` (seconds) and \`{ error, retryAfter, status }\`.
`.trim();

const HEADERS = {
  'X-RateLimit-Limit': { description: 'Requests allowed in the tightest window that applies', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left in that window', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'Whole seconds until that window resets', schema: { type: 'integer' } },
  'Retry-After': { description: 'Seconds to wait before trying again (429 only)', schema: { type: 'integer' } },
};

type Doc = {
  paths?: Record<string, Record<string, { tags?: string[]; responses?: Record<string, { headers?: Record<string, unknown> }> }>>;
  components?: Record<string, unknown>;
};

/** Adds the rate-limit headers to every API response, and Retry-After to every 429. */
function describeLimits(doc: Doc): Doc {
  doc.components = {
    ...doc.components,
    headers: HEADERS,
    securitySchemes: {
      apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      session: { type: 'apiKey', in: 'cookie', name: 'ib_session' },
    },
  };
  for (const [path, ops] of Object.entries(doc.paths ?? {})) {
    for (const op of Object.values(ops)) {
      // The API, and Danbooru's at the root, which counts in the same windows.
      const limited = (path.startsWith('/api') && !path.startsWith('/api/docs')) || op.tags?.includes('danbooru');
      if (!limited) continue;
      for (const [code, res] of Object.entries(op.responses ?? {})) {
        const names = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', ...(code === '429' ? ['Retry-After'] : [])];
        res.headers = { ...res.headers, ...Object.fromEntries(names.map((n) => [n, { $ref: `#/components/headers/${n}` }])) };
      }
    }
  }
  return doc;
}

/** One field of a multipart form as the OpenAPI document shows it; a file is a string of format binary. */
export interface FormField {
  type: 'string' | 'boolean';
  format?: 'binary';
  description: string;
  enum?: readonly string[];
  maxLength?: number;
}

export const fileField = (description: string): FormField => ({ type: 'string', format: 'binary', description });

/**
 * Documents a route's multipart/form-data body, for its `config.swaggerTransform`, so Swagger UI's
 * "Try it out" offers a file picker. Only the document sees it: Fastify gets no body schema for
 * multipart, because the handler reads the parts as a stream. A JSON body the route also takes
 * (its schema.body) stays documented beside the form.
 */
export function multipartBody(fields: Record<string, FormField>, required: string[] = []): SwaggerTransform {
  const form = { type: 'object', properties: fields, ...(required.length ? { required } : {}) };
  return ({ schema, url }) => {
    const content: Record<string, { schema: unknown }> = {};
    if (schema.body) content['application/json'] = { schema: schema.body };
    content['multipart/form-data'] = { schema: form };
    return { url, schema: { ...schema, body: { content } } };
  };
}

export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: 'Image board API', version: API_VERSION, description: DESCRIPTION },
      tags: [
        { name: 'meta', description: 'What the API offers' },
        { name: 'posts', description: 'Posts: images and videos with tags' },
        { name: 'tags', description: 'Tags and their counts' },
        { name: 'pools', description: 'Ordered collections of posts' },
        { name: 'users', description: 'Profiles' },
        { name: 'stats', description: 'Statistics and health' },
        { name: 'auth', description: 'Sign-up and sessions' },
        { name: 'api-keys', description: 'API keys, capped by tier' },
        { name: 'comments', description: 'Comments and replies' },
        { name: 'reactions', description: 'Likes and favorites' },
        { name: 'admin', description: 'Administration' },
        { name: 'moderation', description: 'Reports, bans and the audit log of moderator and admin actions' },
        { name: 'jobs', description: 'Background jobs (backfills, retags, bulk edits) and their progress' },
        {
          name: 'danbooru',
          description:
            "Danbooru's JSON API at the root (/posts.json, ...), for the clients that speak it (gallery-dl, Grabber, Boorusama, LoliSnatcher): the same data, search and rate limits as /api. An API key may be sent as HTTP Basic `username:key` or as `login` and `api_key` query parameters; errors are `{ success: false, error, message }`.",
        },
      ],
    },
    transformObject: (doc) => describeLimits(('openapiObject' in doc ? doc.openapiObject : doc.swaggerObject) as Doc) as never,
  });
  // Without upgrade-insecure-requests: over plain HTTP on a LAN address it would blank the page.
  await app.register(swaggerUi, {
    routePrefix: '/api/docs',
    ...docsPageOptions,
    staticCSP: true,
    transformStaticCSP: (csp) => csp.replace(/\s*upgrade-insecure-requests;?/, ''),
  });
  app.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
