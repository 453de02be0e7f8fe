import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MetricsSettings } from '../../config.ts';
import { errorBody } from '../../core/errors.ts';
import { BEARER_CHALLENGE, NEEDS_TOKEN } from './metrics.routes.ts';
import { bearerMatches } from './metrics.service.ts';

export interface MetricsListener {
  port: number;
  close(): Promise<void>;
}

/**
 * METRICS_PORT: a listener of its own on METRICS_HOST that answers GET /metrics and nothing else
 * (404), behind METRICS_TOKEN too when it is set. Plain node:http: no route, hook or plugin of the
 * board runs here. Opened by server.ts: by the process alone, or by the main thread with WORKERS > 1.
 * Rejects when the port cannot be opened.
 */
export async function listenForMetrics(
  settings: MetricsSettings,
  scrape: () => Promise<string>,
  contentType: string,
  failed: (err: unknown) => void,
): Promise<MetricsListener> {
  const json = (res: http.ServerResponse, status: number, message: string) =>
    res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' }).end(JSON.stringify(errorBody(status, message)));
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics') return json(res, 404, `Not found: ${req.method} ${path}; this address serves GET /metrics only`);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      return json(res, 405, `Method ${req.method} is not allowed on /metrics; use GET`);
    }
    if (settings.token && !bearerMatches(req.headers.authorization, settings.token)) {
      res.setHeader('WWW-Authenticate', BEARER_CHALLENGE);
      return json(res, 401, NEEDS_TOKEN);
    }
    scrape().then(
      (text) => res.writeHead(200, { 'Content-Type': contentType, 'Cache-Control': 'no-store' }).end(req.method === 'HEAD' ? undefined : text),
      (err) => {
        failed(err);
        json(res, 500, 'The metrics could not be gathered; see the server log');
      },
    );
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(settings.port, settings.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
