import { Type, type Static } from 'typebox';
import type { FastifyRequest } from 'fastify';
import { tmpDirOf } from '../../config.ts';
import type { TypedApp } from '../../core/typed-app.ts';
import type { Deps } from '../../core/deps.ts';
import { AppError, badRequest } from '../../core/errors.ts';
import { fileField, multipartBody } from '../../core/openapi.ts';
import { errors, PostIdParams } from '../../core/schemas.ts';
import { PostListItem } from '../posts/posts.schemas.ts';
import { receiveForm, type ReceivedForm } from '../uploads/receive.ts';
import type { SimilarQuery, SimilarService } from './similar.service.ts';

const Query = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 12 })),
    maxDistance: Type.Optional(Type.Integer({ minimum: 0, maximum: 64, default: 12, description: 'Largest Hamming distance (bits of 64) to include' })),
  },
  { additionalProperties: false },
);
const Similar = Type.Object({
  hash: Type.String({ description: 'The 64-bit perceptual hash searched for, as 16 hex digits' }),
  posts: Type.Array(Type.Intersect([PostListItem, Type.Object({ distance: Type.Integer({ description: 'Hamming distance; 0 = same picture' }) })]), {
    description: 'Nearest first',
  }),
});

const query = (q: Static<typeof Query>): SimilarQuery => ({ limit: q.limit ?? 12, maxDistance: q.maxDistance ?? 12 });

/** Reads the image to compare, to a temporary file. */
async function readImage(deps: Deps, req: FastifyRequest): Promise<ReceivedForm> {
  if (!req.isMultipart()) throw new AppError(415, 'Send the image as multipart/form-data');
  // Other fields are allowed through to the check, which names what is wrong (busboy's own
  // "reach fields limit" would be a 413 that says nothing useful).
  return receiveForm(req, tmpDirOf(deps.config), deps.config.uploads, 5, (part) => {
    if (part.type !== 'file' || part.fieldname !== 'file') badRequest("send the image as a multipart file field named 'file'");
  });
}

export function similarRoutes(app: TypedApp, deps: Deps, similar: SimilarService): void {
  app.get(
    '/api/posts/:id/similar',
    {
      schema: {
        summary: 'Posts that look like this one, by perceptual-hash distance',
        tags: ['posts'],
        params: PostIdParams,
        querystring: Query,
        response: { 200: Similar, ...errors(400, 401, 404, 429) },
      },
      config: { limit: 'post' },
    },
    async (req) => similar.toPost(req.params.id, query(req.query)),
  );

  app.post(
    '/api/search/similar',
    {
      schema: {
        summary: 'Find posts that look like an uploaded image (multipart field `file`); nothing is stored',
        tags: ['posts'],
        querystring: Query,
        response: { 200: Similar, ...errors(400, 401, 413, 415, 429) },
      },
      // A search that stores nothing: a banned user may read.
      config: {
        limit: 'search',
        whileBanned: true,
        scope: 'read',
        swaggerTransform: multipartBody({ file: fileField('The image to compare (not stored)') }, ['file']),
      },
    },
    async (req) => {
      // The service removes the form's temporary file, so nothing else may come between the two.
      const form = await readImage(deps, req);
      return similar.toUpload(form, query(req.query));
    },
  );
}
