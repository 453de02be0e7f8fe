import type { MetricsSettings } from '../../config.ts';
import { sendError } from '../../core/errors.ts';
import { errors } from '../../core/schemas.ts';
import type { TypedApp } from '../../core/typed-app.ts';
import { type AppMetrics, bearerMatches } from './metrics.service.ts';

/** What a request without the token is told, and where (also the separate listener's: metrics-listener.ts). */
export const NEEDS_TOKEN = 'GET /metrics needs the bearer token of METRICS_TOKEN: Authorization: Bearer <token>';
export const BEARER_CHALLENGE = 'Bearer realm="metrics"';

/**
 * Counts every answered request by its route pattern (not its URL: one series a route, whatever
 * the ids), and serves GET /metrics on the board's port unless a listener of its own does
 * (METRICS_PORT). `scrape` gives the text: this app's registry, or with WORKERS > 1 the main
 * thread's sum of every thread's (thread-metrics.ts).
 */
export function metricsRoutes(app: TypedApp, metrics: AppMetrics, settings: MetricsSettings, scrape: () => Promise<string>): void {
  // A hook that never waits takes a callback: an async one costs every request a promise.
  app.addHook('onResponse', (req, reply, done) => {
    metrics.request(req.method, req.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  if (settings.port !== 0) return;
  app.get(
    '/metrics',
    {
      // Scraped every few seconds: logged only when something goes wrong.
      logLevel: 'warn',
      schema: {
        summary: "The board's numbers in Prometheus' text format (METRICS=on; docs/deploy.md, Metrics)",
        description: 'Needs `Authorization: Bearer <METRICS_TOKEN>`. With `METRICS_PORT` set it is served there instead, and this port answers 404.',
        tags: ['operations'],
        response: {
          200: { description: "Prometheus' text exposition format 0.0.4", content: { 'text/plain': { schema: { type: 'string' } } } },
          ...errors(401),
        },
      },
    },
    async (req, reply) => {
      if (!bearerMatches(req.headers.authorization, settings.token)) {
        reply.header('WWW-Authenticate', BEARER_CHALLENGE);
        return sendError(req, reply, 401, NEEDS_TOKEN);
      }
      const text = await scrape();
      return reply.header('Content-Type', metrics.contentType).header('Cache-Control', 'no-store').send(text);
    },
  );
}
