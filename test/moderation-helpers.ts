import assert from 'node:assert/strict';
import { before } from 'node:test';
import type { App } from '../src/app.ts';
import { register, setAccount, type Account } from './auth-helpers.ts';
import type { Ctx } from './helpers.ts';

type Headers = Record<string, string>;

/** Everyone a rule tells apart: a member, the owner of the things reported or moderated, a moderator, an admin. */
export interface Cast {
  admin: Account;
  mod: Account;
  owner: Account;
  member: Account;
}

/** Registers the cast before the suite's tests (read it inside a test). */
export function cast(ctx: Ctx): Cast {
  const who = {} as Cast;
  before(async () => {
    who.admin = await register(ctx.app, 'root');
    who.mod = await register(ctx.app, 'mod');
    who.owner = await register(ctx.app, 'olive');
    who.member = await register(ctx.app, 'mallory');
    await setAccount(ctx.database, 'root', { role: 'admin' });
    await setAccount(ctx.database, 'mod', { role: 'moderator' });
  });
  return who;
}

export const report = (app: App, headers: Headers, payload: unknown) =>
  app.inject({ method: 'POST', url: '/api/reports', headers, payload: payload as object });

export const reports = (app: App, headers: Headers, query = '') => app.inject({ method: 'GET', url: `/api/moderation/reports${query}`, headers });

export const settle = (app: App, headers: Headers, id: string, payload: unknown) =>
  app.inject({ method: 'PATCH', url: `/api/moderation/reports/${id}`, headers, payload: payload as object });

export const ban = (app: App, headers: Headers, username: string, payload: unknown) =>
  app.inject({ method: 'PUT', url: `/api/admin/users/${username}/ban`, headers, payload: payload as object });

export const unban = (app: App, headers: Headers, username: string) => app.inject({ method: 'DELETE', url: `/api/admin/users/${username}/ban`, headers });

export const audit = (app: App, headers: Headers, query = '') => app.inject({ method: 'GET', url: `/api/audit${query}`, headers });

export interface Entry {
  id: string;
  actor: { username: string } | null;
  action: string;
  target: string;
  details: Record<string, unknown>;
  createdAt: string;
}

/** GET /api/audit as a moderator would, asserted 200: the entries. */
export async function auditEntries(app: App, headers: Headers, query = ''): Promise<Entry[]> {
  const res = await audit(app, headers, query);
  assert.equal(res.statusCode, 200, res.body);
  return res.json().entries;
}

/** Adds a comment through the API; returns its id. */
export async function comment(app: App, headers: Headers, postId: string, content = 'a comment'): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/api/comments', headers, payload: { postId, content } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().comment.id;
}
