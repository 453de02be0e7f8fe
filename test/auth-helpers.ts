import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { App } from '../src/app.ts';
import type { DB } from '../src/db/types.ts';

export const PASSWORD = 'correct horse battery';
export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const SESSION = 'ib_session';

type Injected = Awaited<ReturnType<App['inject']>>;

export const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');

/** The session token a response set, or undefined. */
export function sessionToken(res: Injected): string | undefined {
  const c = (res.cookies as { name: string; value: string }[]).find((x) => x.name === SESSION);
  return c?.value || undefined;
}

export const cookieHeader = (token: string) => ({ cookie: `${SESSION}=${token}` });

export interface Account {
  id: string;
  username: string;
  password: string;
  token: string;
  /** Headers that authenticate as this user by session cookie. */
  headers: { cookie: string };
}

/** Registers through the real endpoint and returns the signed-in account. */
export async function register(app: App, username: string, password = PASSWORD): Promise<Account> {
  const res = await app.inject({ method: 'POST', url: '/api/auth/register', payload: { username, password } });
  assert.equal(res.statusCode, 201, res.body);
  const token = sessionToken(res);
  assert.ok(token, 'register sets the session cookie');
  return { id: res.json().user.id, username, password, token, headers: cookieHeader(token) };
}

export async function login(app: App, username: string, password: string, headers: Record<string, string> = {}) {
  return app.inject({ method: 'POST', url: '/api/auth/login', payload: { username, password }, headers });
}

/** Signs in once more (a second session of the same user). */
export async function loginOk(app: App, username: string, password = PASSWORD): Promise<{ cookie: string }> {
  const res = await login(app, username, password);
  assert.equal(res.statusCode, 200, res.body);
  return cookieHeader(sessionToken(res)!);
}

export async function me(app: App, headers: Record<string, string>) {
  return app.inject({ method: 'GET', url: '/api/auth/me', headers });
}

export async function setAccount(db: Kysely<DB>, username: string, change: { role?: string; tier?: string }) {
  await db.updateTable('users').set(change).where('username_lower', '=', username.toLowerCase()).execute();
}

export async function createKey(app: App, headers: Record<string, string>, name = 'key') {
  return app.inject({ method: 'POST', url: '/api/user/api-keys', headers, payload: { name } });
}

/** Creates a key that must succeed; returns its id and secret. */
export async function createKeyOk(app: App, headers: Record<string, string>, name = 'key'): Promise<{ id: string; key: string }> {
  const res = await createKey(app, headers, name);
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

export async function listKeys(app: App, headers: Record<string, string>) {
  const res = await app.inject({ method: 'GET', url: '/api/user/api-keys', headers });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().keys as { id: string; name: string; isActive: boolean; lastUsed: string | null; createdAt: string }[];
}

export async function revokeKey(app: App, headers: Record<string, string>, keyId: unknown) {
  return app.inject({ method: 'DELETE', url: '/api/user/api-keys', headers, payload: { keyId } });
}

/** A 400 whose details name the field. */
export function assertBadField(res: Injected, field: string): void {
  assert.equal(res.statusCode, 400, res.body);
  const body = res.json();
  assert.equal(body.status, 400);
  assert.equal(typeof body.error, 'string');
  assert.ok(
    body.details?.some((d: { field: string }) => d.field === field),
    `details name '${field}': ${res.body}`,
  );
  const words = (t: string) => t.toLowerCase().replace(/[^a-z]/g, '');
  assert.ok(words(body.error).includes(words(field)), `the message names '${field}': ${body.error}`);
}

/** `{ error, status }` and nothing else. */
export function assertError(res: Injected, status: number): void {
  assert.equal(res.statusCode, status, res.body);
  const body = res.json();
  assert.equal(body.status, status);
  assert.equal(typeof body.error, 'string');
  assert.ok(body.error.length > 0);
}

const members = new WeakMap<App, Promise<{ cookie: string }>>();

/**
 * Session headers of a member with no filters of their own, made once per app: GET /api/posts
 * lists every rating to them. For suites about something else than who sees what (a visitor sees
 * the VISITOR_RATINGS only: modules/preferences/preferences.test.ts).
 */
export function memberHeaders(app: App): Promise<{ cookie: string }> {
  let known = members.get(app);
  if (!known) {
    known = register(app, `lister_${Math.random().toString(36).slice(2, 10)}`).then((a) => a.headers);
    members.set(app, known);
  }
  return known;
}
