import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import * as repo from './auth.repo.ts';
import { banJson, banMessage } from './bans.ts';
import { banInForce } from './bans.repo.ts';
import type { Deps, Viewer } from './deps.ts';
import { sendError } from './errors.ts';
import { isModerator } from './policy.ts';
import { addressAllowed, plainAddress } from './addresses.ts';
import { missingScope, requireRouteScopes, routeScope, type RouteScope } from './scopes.ts';
import { sha256Hex } from './tokens.ts';
import { unavailableOf } from '../storage/unavailable.ts';

export const SESSION_COOKIE = 'ib_session';
/** How stale last_seen_at / last_used may get before a request writes it again. */
const TOUCH_EVERY_MS = 60_000;
const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Who may call a route: read by the hook below from the route's `config.auth`. */
export type AuthRule = 'user' | 'moderator' | 'admin';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthRule;
    limit?: string;
    /**
     * Another board's API the route speaks (`danbooru`): its errors take that board's shape
     * (errors.ts sendError), and an API key may come as its clients send it (HTTP Basic
     * `username:key`, or `login` and `api_key` query parameters) besides X-API-Key.
     */
    compat?: string;
    /**
     * A write a banned user may still make: signing in and out, changing their password, a
     * search sent as a POST. Every other POST, PUT, PATCH and DELETE of a banned user is 403.
     */
    whileBanned?: boolean;
    /** Count the route's requests in the rate-limit window of this route of ours ("GET /api/posts"): the same data, one budget. */
    limitAs?: string;
    /**
     * What an API key needs to call the route (core/scopes.ts). A GET needs `read` and a route
     * only staff may call `moderation` unless this says otherwise; every other route must say.
     */
    scope?: RouteScope;
  }
  interface FastifyRequest {
    authMethod: 'key' | 'session' | null;
    sessionId: number | null;
    apiKeyId: number | null;
  }
}

type Found = { id: number; last_seen_at: number | null };

async function userByKey(deps: Deps, key: string) {
  return repo.findUserByKey(deps.db, sha256Hex(key));
}

async function userBySession(deps: Deps, token: string) {
  return repo.findUserBySession(deps.db, sha256Hex(token), deps.clock.now());
}

function touch(deps: Deps, req: FastifyRequest, user: Found): void {
  const now = deps.clock.now();
  if (user.last_seen_at !== null && now - user.last_seen_at < TOUCH_EVERY_MS) return;
  repo.touchUser(deps.db, user.id, now).catch(notTouched(req, 'users.last_seen_at'));
}

/**
 * A time of last use that could not be written: the request goes on (a disk that is full or
 * read-only must not fail reads). Such an outage is logged at debug only: it would be a line a
 * request, and the requests it does fail are logged.
 */
const notTouched = (req: FastifyRequest, what: string) => (err: unknown) => {
  if (unavailableOf(err)) req.log.debug({ err }, `${what} not updated`);
  else req.log.warn({ err }, `${what} not updated`);
};

/** The request's Origin names another site than the one it was sent to. */
function crossSite(req: FastifyRequest): boolean {
  const origin = req.headers.origin;
  if (!origin) return false;
  try {
    // req.host is the public host (X-Forwarded-Host behind a trusted proxy); parsing it as a URL
    // drops a default port, as the browser does in Origin (`Host: x:80` is `Origin: http://x`).
    return new URL(origin).host !== new URL(`${req.protocol}://${req.host}`).host;
  } catch {
    return true;
  }
}

function deny(req: FastifyRequest, reply: FastifyReply, status: number, message: string, extra: Record<string, unknown> = {}) {
  return sendError(req, reply, status, message, extra);
}

/** An API key as other boards' clients send it: HTTP Basic `username:key`, or `login` and `api_key` query parameters. */
function otherBoardKey(req: FastifyRequest): { username: string; key: string } | null {
  const header = req.headers.authorization;
  if (typeof header === 'string' && /^basic /i.test(header)) {
    const plain = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
    const colon = plain.indexOf(':');
    return colon < 0 ? { username: plain, key: '' } : { username: plain.slice(0, colon), key: plain.slice(colon + 1) };
  }
  const query = req.query as Record<string, unknown> | undefined;
  const [login, key] = [query?.login, query?.api_key];
  if (typeof login === 'string' || typeof key === 'string') return { username: String(login ?? ''), key: String(key ?? '') };
  return null;
}

/**
 * Resolves who is calling (X-API-Key first, then the session cookie) on every request, then
 * applies the route's `config.auth` rule. An invalid, revoked or expired key is 401 everywhere; a
 * key's addresses and scopes (`config.scope`) are checked here too, for every route at once.
 */
export function installAuth(app: FastifyInstance, deps: Deps): void {
  app.decorateRequest('authMethod', null);
  app.decorateRequest('sessionId', null);
  app.decorateRequest('apiKeyId', null);
  requireRouteScopes(app);

  app.addHook('onRequest', (req, reply, done) => {
    const header = req.headers['x-api-key'];
    const other = header === undefined && req.routeOptions.config?.compat ? otherBoardKey(req) : null;
    const key = other ? other.key : header;
    const token = key === undefined ? req.cookies?.[SESSION_COOKIE] : undefined;
    // A visitor on an open route (most reads) is answered without a promise: nothing to look up.
    if (key === undefined && !token && !req.routeOptions.config?.auth) return done();
    resolveCaller(req, reply, key, other, token).then(() => done(), done);
  });

  /**
   * Takes the key as the caller, or answers why not: unknown, revoked or expired (401), another
   * user's name beside it, an address it does not allow or a scope it lacks for the route (403).
   */
  async function acceptKey(req: FastifyRequest, reply: FastifyReply, key: string | string[], other: { username: string } | null): Promise<unknown> {
    const found = typeof key === 'string' && key.length <= 200 ? await userByKey(deps, key) : undefined;
    if (found?.is_active !== 1) return deny(req, reply, 401, 'Invalid or revoked API key');
    const now = deps.clock.now();
    if (found.expires_at !== null && found.expires_at <= now) return deny(req, reply, 401, 'API key expired');
    // The name the client gave must be the key's owner's (names are case-insensitive).
    if (other && other.username.toLowerCase() !== found.username.toLowerCase()) return deny(req, reply, 401, 'The API key does not belong to that user');
    const ip = plainAddress(req.ip);
    if (found.allowed_addresses !== null && !addressAllowed(ip, found.allowed_addresses.split(' '))) {
      return deny(req, reply, 403, `API key not allowed from address ${ip}`);
    }
    const held = found.scopes.split(' ');
    const missing = scopeMissing(req, held, found.role as Viewer['role']);
    if (missing) return deny(req, reply, 403, `API key lacks scope '${missing}'`);
    req.viewer = keyViewer(found, held);
    req.authMethod = 'key';
    req.apiKeyId = found.key_id;
    // A new address is written at once, so the list says where the key was last used from.
    if (found.last_used === null || now - found.last_used >= TOUCH_EVERY_MS || found.last_used_ip !== ip) {
      await repo.touchKey(deps.db, found.key_id, now, ip).catch(notTouched(req, 'api_keys.last_used'));
    }
    touch(deps, req, found);
    return undefined;
  }

  async function resolveCaller(
    req: FastifyRequest,
    reply: FastifyReply,
    key: string | string[] | undefined,
    other: { username: string } | null,
    token: string | undefined,
  ): Promise<unknown> {
    if (key !== undefined) {
      const refused = await acceptKey(req, reply, key, other);
      if (refused) return refused;
    } else {
      const found = token ? await userBySession(deps, token) : undefined;
      if (found) {
        req.viewer = asViewer(found);
        req.authMethod = 'session';
        req.sessionId = found.session_id;
        touch(deps, req, found);
      }
    }
    if (req.authMethod === 'session' && UNSAFE_METHODS.has(req.method) && crossSite(req)) {
      return deny(req, reply, 403, 'Cross-site request refused: the Origin header names another site');
    }
    const rule = req.routeOptions.config?.auth;
    if (rule && !req.viewer) return deny(req, reply, 401, 'Sign in or send an X-API-Key header');
    if (rule === 'admin' && req.viewer?.role !== 'admin') return deny(req, reply, 403, 'Only an admin may do this');
    if (rule === 'moderator' && req.viewer && !isModerator(req.viewer)) return deny(req, reply, 403, 'Only a moderator or an admin may do this');
    // The one place a banned user's writes are refused, whichever route and however signed in.
    if (req.viewer && UNSAFE_METHODS.has(req.method) && !req.routeOptions.config?.whileBanned) {
      const ban = await banInForce(deps.db, req.viewer.id, deps.clock.now());
      if (ban) return deny(req, reply, 403, banMessage(ban), { ban: banJson(ban) });
    }
  }
}

/** The scope the key lacks for the request's route (core/scopes.ts), or null; an unknown route (404) needs none. */
function scopeMissing(req: FastifyRequest, held: string[], role: Viewer['role']): string | null {
  if (req.routeOptions.url === undefined) return null;
  // Every route has a scope (requireRouteScopes); one without would ask for all of them, not none.
  return missingScope(routeScope(req.method, req.routeOptions.config) ?? 'account', held, role);
}

/** The viewer a key acts as: without `moderation`, a moderator's or an admin's key has a member's powers only. */
function keyViewer(found: { id: number; username: string; role: string; tier: string }, held: string[]): Viewer {
  const viewer = asViewer(found);
  return held.includes('moderation') || !isModerator(viewer) ? viewer : { ...viewer, role: 'user' };
}

/** The signed-in viewer of a route guarded by `config.auth` (the hook guarantees it). */
export function viewerOf(req: FastifyRequest): Viewer {
  if (!req.viewer) throw new Error('route is missing config.auth');
  return req.viewer;
}

/** A users row (or a join with its id, name, role and tier) as the Viewer a request or a background round acts for. */
export function asViewer(u: { id: number; username: string; role: string; tier: string }): Viewer {
  return { id: u.id, username: u.username, role: u.role as Viewer['role'], tier: u.tier as Viewer['tier'] };
}
