import type { FastifyInstance, RouteOptions } from 'fastify';
import type { Viewer } from './deps.ts';
import { isModerator } from './policy.ts';

/** What an API key may be used for. A session may do whatever its user may. */
export const SCOPES = ['read', 'posts:write', 'comments:write', 'reactions:write', 'pools:write', 'moderation'] as const;
export type Scope = (typeof SCOPES)[number];

/**
 * What a route asks of a key: one scope; `account`, every scope the key's owner may give a key
 * (managing keys, the password and the profile, so a narrower key cannot widen itself or take over
 * the account); `none`, no scope, on the routes that do not act as the key's owner (sign-up,
 * sign-in, sign-out, a password reset link).
 */
export type RouteScope = Scope | 'account' | 'none';

/** The scopes a user of that role may give a key, and a key gets when none are asked for: `moderation` for staff only. */
export function scopesFor(role: Viewer['role']): Scope[] {
  return isModerator({ role }) ? [...SCOPES] : SCOPES.filter((s) => s !== 'moderation');
}

const READS = new Set(['GET', 'HEAD']);

/**
 * The scope a key needs on a route: the route's `config.scope`; else `moderation` on a route only
 * staff may call (`config.auth`), and `read` on a GET; undefined for a write that names none.
 */
export function routeScope(method: string, config: { scope?: RouteScope; auth?: string } | undefined): RouteScope | undefined {
  if (config?.scope) return config.scope;
  if (config?.auth === 'moderator' || config?.auth === 'admin') return 'moderation';
  return READS.has(method) ? 'read' : undefined;
}

/** The first scope a key holding `held` lacks for `need` (its owner's role tells what `account` is), or null. */
export function missingScope(need: RouteScope, held: readonly string[], role: Viewer['role']): Scope | null {
  if (need === 'none') return null;
  const wanted = need === 'account' ? scopesFor(role) : [need];
  return wanted.find((s) => !held.includes(s)) ?? null;
}

/**
 * Every route says what a key needs on it: a write that names no scope stops the app from being
 * built, so a new route cannot forget it. Each route's scope is also in its OpenAPI operation
 * (`x-api-key-scope`, and a sentence of its description).
 */
export function requireRouteScopes(app: FastifyInstance): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const scopes = methods.map((m) => routeScope(m, route.config));
    const missing = methods.find((_, i) => scopes[i] === undefined);
    if (missing) throw new Error(`${missing} ${route.url}: say what an API key needs on it in config.scope (src/core/scopes.ts)`);
    // A HEAD route made from a GET carries its schema, already described.
    if (!route.schema || scopes.length !== 1 || 'x-api-key-scope' in route.schema) return;
    const scope = scopes[0]!;
    const said = scope === 'none' ? 'needs no scope' : scope === 'account' ? 'needs every scope its owner may give a key' : `needs the scope \`${scope}\``;
    const description = [route.schema.description, `An API key ${said}.`].filter(Boolean).join('\n\n');
    route.schema = { ...route.schema, description, 'x-api-key-scope': scope } as typeof route.schema;
  });
}
