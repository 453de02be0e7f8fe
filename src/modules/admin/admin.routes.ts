import { Type } from 'typebox';
import type { TypedApp } from '../../core/typed-app.ts';
import type { Deps } from '../../core/deps.ts';
import { viewerOf } from '../../core/auth.ts';
import { errors, StringEnum, UsernameParams } from '../../core/schemas.ts';
import { ROLES, TIERS } from '../../core/tiers.ts';
import { User } from '../auth/auth.schemas.ts';
import { changeAccount } from './admin.service.ts';
import { MemberList, MemberListQuery } from './members.schemas.ts';
import { listMembers } from './members.service.ts';

const ChangeBody = Type.Object({ tier: Type.Optional(StringEnum(TIERS)), role: Type.Optional(StringEnum(ROLES)) }, { additionalProperties: false });
const Changed = Type.Object({
  user: User,
  revokedKeys: Type.Integer({ description: 'Keys revoked because the new tier allows fewer (newest first)' }),
});

export function adminRoutes(app: TypedApp, deps: Deps): void {
  app.get(
    '/api/admin/users',
    {
      schema: {
        summary: 'The members: newest first or by name, with role, tier, last visit and ban (moderators and admins)',
        description:
          "What the moderation area's Users tab lists. Staff see each account's role and tier here (a profile, GET /api/users/<username>, " +
          'shows neither to anyone); no email address is shown. Filters combine; `page` from 1, `limit` 1-100 (default 50).',
        tags: ['admin'],
        querystring: MemberListQuery,
        response: { 200: MemberList, ...errors(400, 401, 403, 429) },
      },
      config: { auth: 'moderator' },
    },
    async (req) => listMembers(deps, req.query),
  );

  app.put(
    '/api/admin/users/:username',
    {
      schema: {
        summary: "Set a user's tier and/or role (admins only)",
        description: 'The board keeps at least one admin: taking the role from the last one is a 409.',
        tags: ['admin'],
        params: UsernameParams,
        body: ChangeBody,
        response: { 200: Changed, ...errors(400, 401, 403, 404, 409, 429) },
      },
      config: { auth: 'admin' },
    },
    async (req) => changeAccount(deps, viewerOf(req), req.params.username, req.body),
  );
}
