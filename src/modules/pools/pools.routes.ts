import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../core/deps.ts';
import { errors } from '../../core/schemas.ts';
import { PoolList, PoolListQuery } from './pools.schemas.ts';
import * as pools from './pools.service.ts';

export function poolsRoutes(app: FastifyInstance, deps: Deps): void {
  app.get('/api/pools', {
    schema: {
      summary: 'List pools (ordered collections of posts)',
      tags: ['pools'],
      querystring: PoolListQuery,
      response: { 200: PoolList, ...errors(400, 401, 429) },
    },
    config: { limit: 'pools' },
  }, async (req) => pools.listPools(deps, req.viewer, req.query as PoolListQuery));
}
