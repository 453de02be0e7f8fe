import { Type } from 'typebox';
import type { TypedApp } from '../../core/typed-app.ts';
import { StringEnum } from '../../core/schemas.ts';
import type { ReadinessChecks } from './health.service.ts';

const Alive = Type.Object({ status: StringEnum(['ok'] as const) });

const CheckResult = Type.Object({
  ok: Type.Boolean(),
  ms: Type.Integer({ description: 'How long the check took' }),
  error: Type.Optional(Type.String({ description: 'Why it failed, in general terms (details are in the server log)' })),
});

const Readiness = Type.Object({
  status: StringEnum(['ok', 'not ready', 'draining'] as const, {
    description: '`draining`: the instance received SIGTERM and stops shortly; no checks are run',
  }),
  checks: Type.Record(Type.String(), CheckResult, { description: 'Each check by name: `database`, `media`, and `redis` when Redis is used' }),
  failing: Type.Array(Type.String(), { description: 'The checks that failed' }),
});

// Load balancers poll these every few seconds: they are neither rate-limited (outside /api) nor
// logged as requests (only warnings and errors are).
const quiet = { logLevel: 'warn' } as const;

export function healthRoutes(app: TypedApp, readiness: ReadinessChecks): void {
  app.get(
    '/healthz',
    { ...quiet, schema: { summary: 'Liveness: the process is up and answering', tags: ['operations'], response: { 200: Alive } } },
    async (_req, reply) => reply.header('Cache-Control', 'no-store').send({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    {
      ...quiet,
      schema: {
        summary: 'Readiness: the database, Redis (when used) and the media store answer; 503 names what does not, or says the instance is draining',
        tags: ['operations'],
        response: { 200: Readiness, 503: Readiness },
      },
    },
    async (_req, reply) => {
      const r = await readiness.run();
      return reply
        .code(r.status === 'ok' ? 200 : 503)
        .header('Cache-Control', 'no-store')
        .send(r);
    },
  );
}
