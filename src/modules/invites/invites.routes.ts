import type { TypedApp } from '../../core/typed-app.ts';
import type { Deps } from '../../core/deps.ts';
import { viewerOf } from '../../core/auth.ts';
import { errors, Message } from '../../core/schemas.ts';
import { InviteCreated, InviteIdParams, InviteList, InviteListQuery, NewInviteBody } from './invites.schemas.ts';
import { createInvite, deleteInvite, listInvites } from './invites.service.ts';

// Admins only, moderators included out: who may join is a decision about the board, like roles and tiers.
export function invitesRoutes(app: TypedApp, deps: Deps): void {
  app.post(
    '/api/admin/invites',
    {
      schema: {
        summary: 'Make a one-time invite code for registration (admins only)',
        description:
          'With REGISTRATION=invite, `POST /api/auth/register` needs one of these codes in `invite`; each code makes one account. ' +
          'The code is in this answer only. Moderators may not make invites: who joins is an admin decision, as roles and tiers are.',
        tags: ['admin'],
        body: NewInviteBody,
        response: { 201: InviteCreated, ...errors(400, 401, 403, 429) },
      },
      config: { auth: 'admin' },
    },
    async (req, reply) => reply.code(201).send(await createInvite(deps, viewerOf(req), req.body)),
  );

  app.get(
    '/api/admin/invites',
    {
      schema: {
        summary: 'Invite codes, newest first, with who made and who used each (admins only; the codes themselves are never shown again)',
        tags: ['admin'],
        querystring: InviteListQuery,
        response: { 200: InviteList, ...errors(400, 401, 403, 429) },
      },
      config: { auth: 'admin' },
    },
    async (req) => listInvites(deps, req.query),
  );

  app.delete(
    '/api/admin/invites/:id',
    {
      schema: {
        summary: 'Withdraw an invite code not used yet (admins only); a used one stays as the record (409)',
        tags: ['admin'],
        params: InviteIdParams,
        response: { 200: Message, ...errors(401, 403, 404, 409, 429) },
      },
      config: { auth: 'admin' },
    },
    async (req) => deleteInvite(deps, req.params.id),
  );
}
