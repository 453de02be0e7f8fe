import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TypedApp } from '../../core/typed-app.ts';
import type { Deps } from '../../core/deps.ts';
import { SESSION_COOKIE, viewerOf } from '../../core/auth.ts';
import { errors, Message } from '../../core/schemas.ts';
import { LoginBody, PasswordChangeBody, RegisterBody, UserEnvelope } from './auth.schemas.ts';
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
        tags: ['auth'],
        body: RegisterBody,
        response: { 201: UserEnvelope, ...errors(400, 409, 429) },
      },
      config: { limit: 'auth' },
    },
    async (req, reply) => {
      const { user, token } = await auth.register(deps, req.body);
      setSessionCookie(req, reply, token);
      return reply.code(201).send({ user });
    },
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
      config: { limit: 'auth', whileBanned: true },
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
      config: { whileBanned: true },
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
      config: { auth: 'user', whileBanned: true },
    },
    async (req) => auth.changePassword(deps, viewerOf(req), req.sessionId, req.body),
  );
}
