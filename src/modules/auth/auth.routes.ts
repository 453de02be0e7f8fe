import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TypedApp } from '../../core/typed-app.ts';
import type { Deps } from '../../core/deps.ts';
import { SESSION_COOKIE, viewerOf } from '../../core/auth.ts';
import { errors, Message } from '../../core/schemas.ts';
import { LoginBody, PasswordChangeBody, Registration, RegisterBody, ResetBody, SessionEnvelope, UserEnvelope } from './auth.schemas.ts';
import { resetPassword } from './password-reset.ts';
import { SESSION_TTL_MS } from './sessions.repo.ts';
import * as auth from './auth.service.ts';

function setSessionCookie(req: FastifyRequest, reply: FastifyReply, token: string): void {
  reply.setCookie(SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'lax',
    secure: req.protocol === 'https',
    path: '/',
    maxAge: SESSION_TTL_MS / 1000,
  });
}

export function authRoutes(app: TypedApp, deps: Deps): void {
  app.post(
    '/api/auth/register',
    {
      schema: {
        summary: 'Create an account and sign in (sets the session cookie)',
        description:
          'Who may register is the REGISTRATION setting (`GET /api/auth/registration`): `open` (the default) anyone; `invite` only with ' +
          'an unspent invite code in `invite` (403 when it is missing, unknown, used or expired; each code makes one account, even when ' +
          'two sign-ups send it at once); `closed` no one (403).',
        tags: ['auth'],
        body: RegisterBody,
        response: { 201: UserEnvelope, ...errors(400, 403, 409, 429) },
      },
      config: { limit: 'auth', scope: 'none' },
    },
    async (req, reply) => {
      const { user, token } = await auth.register(deps, req.body);
      setSessionCookie(req, reply, token);
      return reply.code(201).send({ user });
    },
  );

  app.get(
    '/api/auth/registration',
    {
      schema: {
        summary: 'Who may register here: open, by invite, or closed (the sign-up form reads it)',
        tags: ['auth'],
        response: { 200: Registration, ...errors(429) },
      },
    },
    async () => auth.registration(deps),
  );

  app.post(
    '/api/auth/reset',
    {
      schema: {
        summary: 'Set a new password with a reset link (`imageboard user reset-password`); signs out every session',
        description:
          'The token is the `token` of the link an admin printed with `imageboard user reset-password <username>`: it works once, ' +
          'for one hour, and only the newest link of an account works. The password follows the rules of registration. ' +
          'Every session of the account ends; its API keys stay active (revoke them on the API keys page if they leaked). ' +
          'It does not sign in: sign in with the new password. An unknown, used or expired token is 400 saying which.',
        tags: ['auth'],
        body: ResetBody,
        response: { 200: Message, ...errors(400, 429) },
      },
      config: { limit: 'auth', scope: 'none' },
    },
    async (req) => resetPassword(deps, req.body),
  );

  app.post(
    '/api/auth/login',
    {
      schema: {
        summary: 'Sign in (sets the session cookie); repeated failures for one account are slowed down',
        tags: ['auth'],
        body: LoginBody,
        response: { 200: UserEnvelope, ...errors(400, 401, 429) },
      },
      config: { limit: 'auth', whileBanned: true, scope: 'none' },
    },
    async (req, reply) => {
      const { user, token } = await auth.login(deps, req.body);
      setSessionCookie(req, reply, token);
      return { user };
    },
  );

  app.post(
    '/api/auth/logout',
    {
      schema: { summary: 'Sign out: the session ends on the server at once', tags: ['auth'], response: { 200: Message, ...errors(403, 429) } },
      config: { whileBanned: true, scope: 'none' },
    },
    async (req, reply) => {
      reply.clearCookie(SESSION_COOKIE, { path: '/' });
      return auth.logout(deps, req.sessionId);
    },
  );

  app.get(
    '/api/auth/me',
    {
      schema: { summary: 'The signed-in user', tags: ['auth'], response: { 200: UserEnvelope, ...errors(401, 429) } },
    },
    async (req) => auth.me(deps, req.viewer),
  );

  app.get(
    '/api/auth/session',
    {
      schema: {
        summary: 'Who is signed in, if anyone: 200 with `user: null` for a visitor',
        description:
          'What a page asks as it opens. For a visitor, not being signed in is an answer rather than an error, so their browser logs no ' +
          'failed request on every page; `/api/auth/me` keeps its 401 for clients that treat it as one. The server alone knows whether a ' +
          'session cookie is still good (it may have expired, been signed out elsewhere or ended by a password reset): such a cookie ' +
          'reads as a visitor here. An invalid or revoked API key is still 401, as on every endpoint.',
        tags: ['auth'],
        response: { 200: SessionEnvelope, ...errors(401, 429) },
      },
    },
    async (req) => auth.session(deps, req.viewer),
  );

  app.put(
    '/api/users/me/password',
    {
      schema: {
        summary:
          'Change your password (current password required); your other sessions end. A banned user may too: it secures the account and changes nothing anyone else sees',
        tags: ['users'],
        body: PasswordChangeBody,
        response: { 200: Message, ...errors(400, 401, 403, 429) },
      },
      config: { auth: 'user', whileBanned: true, scope: 'account' },
    },
    async (req) => auth.changePassword(deps, viewerOf(req), req.sessionId, req.body),
  );
}
