import type { FastifyInstance } from 'fastify';
import type { Deps } from '../deps.ts';
import { sendError } from '../errors.ts';
import { clientKey } from './client-ip.ts';
import { windowsFor } from './rules.ts';
import type { LimitStore } from './windows.ts';

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Only the API (ours, and Danbooru's at the root) is limited; media, the docs page and the web front-end are not. */
const limited = (url: string) => (url === '/api' || url.startsWith('/api/')) && !url.startsWith('/api/docs');

/**
 * Counts each API request (after authentication, so a key's user and tier are known) and sets
 * X-RateLimit-Limit/Remaining/Reset for the tightest window; over a limit: 429 with Retry-After.
 */
export function installRateLimits(app: FastifyInstance, deps: Deps, store: LimitStore): void {
  app.addHook('onRequest', async (req, reply) => {
    const config = req.routeOptions.config;
    if (!limited(req.url) && !config?.compat) return;
    const route = config?.limitAs ?? `${req.method} ${req.routeOptions.url ?? '*'}`;
    const windows = windowsFor(route, config?.limit, {
      ip: clientKey(req.ip),
      userId: req.viewer?.id ?? null,
      tier: req.viewer?.tier ?? null,
      byKey: req.authMethod === 'key',
      write: WRITES.has(req.method),
    });
    const now = deps.clock.now();
    const d = await store.hit(windows, now);
    const seconds = (resetAt: number) => Math.max(1, Math.ceil((resetAt - now) / 1000));
    // The tightest window: the least room left; on a tie, the one that resets last.
    const tight = [...d.windows].sort((a, b) => a.limit - a.count - (b.limit - b.count) || b.resetAt - a.resetAt)[0];
    reply.header('X-RateLimit-Limit', tight.limit);
    reply.header('X-RateLimit-Remaining', Math.max(0, tight.limit - tight.count));
    reply.header('X-RateLimit-Reset', seconds(tight.resetAt));
    if (d.allowed) return;
    deps.metrics?.rateLimited(req.routeOptions.url ?? 'unmatched');
    const wait = Math.max(...d.windows.filter((w) => w.count + 1 > w.limit).map((w) => seconds(w.resetAt)));
    reply.header('X-RateLimit-Reset', wait);
    reply.header('Retry-After', wait);
    return sendError(req, reply, 429, `Rate limit exceeded: try again in ${wait} seconds`, { retryAfter: wait });
  });
}
