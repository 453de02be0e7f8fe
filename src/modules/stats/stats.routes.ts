import type { TypedApp } from '../../core/typed-app.ts';
import type { Deps } from '../../core/deps.ts';
import { errors } from '../../core/schemas.ts';
import { PublicStatus, SystemStats } from './stats.schemas.ts';
import * as stats from './stats.service.ts';

export function statsRoutes(app: TypedApp, deps: Deps): void {
  app.get(
    '/api/public/status',
    {
      schema: {
        summary: 'Public statistics and server health',
        tags: ['stats'],
        response: { 200: PublicStatus, ...errors(401, 429) },
      },
      config: { limit: 'status' },
    },
    async () => stats.publicStatus(deps),
  );

  app.get(
    '/api/stats',
    {
      schema: {
        summary: 'System statistics: the public ones plus storage and uptime',
        tags: ['stats'],
        response: { 200: SystemStats, ...errors(401, 429) },
      },
    },
    async () => stats.systemStats(deps),
  );
}
