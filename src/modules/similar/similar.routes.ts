import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../core/deps.ts';
import { AppError } from '../../core/errors.ts';
import { errors } from '../../core/schemas.ts';
import { PostIdParams, PostListItem } from '../posts/posts.schemas.ts';
import { PhashIndex } from './phash-index.ts';
import { similarToPost, similarToUpload, type SimilarQuery } from './similar.service.ts';

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

const query = (q: unknown): SimilarQuery => {
  const v = q as { limit?: number; maxDistance?: number };
  return { limit: v.limit ?? 12, maxDistance: v.maxDistance ?? 12 };
};

export function similarRoutes(app: FastifyInstance, deps: Deps): void {
  const index = new PhashIndex();

  app.get('/api/posts/:id/similar', {
    schema: { summary: 'Posts that look like this one, by perceptual-hash distance', tags: ['posts'], params: PostIdParams, querystring: Query, response: { 200: Similar, ...errors(400, 401, 404, 429) } },
    config: { limit: 'post' },
  }, async (req) => similarToPost(deps, index, (req.params as { id: string }).id, query(req.query)));

  app.post('/api/search/similar', {
    schema: {
      summary: 'Find posts that look like an uploaded image (multipart field `file`); nothing is stored',
      tags: ['posts'],
      consumes: ['multipart/form-data'],
      querystring: Query,
      response: { 200: Similar, ...errors(400, 401, 413, 415, 429) },
    },
    config: { limit: 'search' },
  }, async (req) => {
    if (!req.isMultipart()) throw new AppError(415, 'Send the image as multipart/form-data');
    return similarToUpload(deps, index, req, query(req.query));
  });
}
