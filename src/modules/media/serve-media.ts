import type { FastifyInstance } from 'fastify';
import { errorBody } from '../../core/errors.ts';
import { MEDIA_PREFIX } from '../../core/media-paths.ts';
import { contentTypeOf, MEDIA_CACHE_CONTROL } from '../../storage/media-types.ts';
import type { S3MediaStore } from '../../storage/s3.ts';

/** A stored path: folders and a name with one extension; nothing that could climb out or be read as a query. */
const STORED_PATH = /^(?:[A-Za-z0-9_-]+\/)*[A-Za-z0-9_-]+\.[A-Za-z0-9]+$/;
/** One range, as video players ask (`bytes=0-`, `bytes=100-199`, `bytes=-500`); anything else gets the whole file. */
const ONE_RANGE = /^bytes=(\d+-\d*|-\d+)$/;

/**
 * GET /media/* from a bucket, when media have no public address of their own (MEDIA_PUBLIC_URL):
 * streamed through with the headers @fastify/static sends for the local store (type, nosniff,
 * ETag, a year's immutable caching, Range), so clients cannot tell the stores apart.
 */
export function serveStoredMedia(app: FastifyInstance, store: S3MediaStore): void {
  app.get(`${MEDIA_PREFIX}*`, { schema: { hide: true } }, async (req, reply) => {
    const rel = (req.params as { '*': string })['*'];
    const notFound = () => reply.code(404).send(errorBody(404, `Not found: ${req.method} ${req.url.split('?')[0]}`));
    if (!STORED_PATH.test(rel)) return notFound();
    const range = req.headers.range?.trim();
    const ifNoneMatch = req.headers['if-none-match']?.trim();
    const got = await store.fetch(rel, { range: range && ONE_RANGE.test(range) ? range : undefined, ifNoneMatch: ifNoneMatch || undefined });
    if (got.status === 404) return notFound();
    reply.header('Accept-Ranges', 'bytes').header('Cache-Control', MEDIA_CACHE_CONTROL).header('X-Content-Type-Options', 'nosniff');
    if (got.etag) reply.header('ETag', got.etag);
    if (got.status === 304) return reply.code(304).send();
    if (got.status === 416) {
      const size = (await store.stat(rel))?.size;
      if (size !== undefined) reply.header('Content-Range', `bytes */${size}`);
      return reply.code(416).send(errorBody(416, 'Range Not Satisfiable'));
    }
    if (got.lastModified) reply.header('Last-Modified', got.lastModified.toUTCString());
    if (got.contentRange) reply.header('Content-Range', got.contentRange);
    if (got.length !== undefined) reply.header('Content-Length', got.length);
    return reply.code(got.status).type(contentTypeOf(rel)).send(got.body);
  });
}
