import type { TypedApp } from '../../core/typed-app.ts';
import type { Deps } from '../../core/deps.ts';
import { viewerOf } from '../../core/auth.ts';
import { errors, Message } from '../../core/schemas.ts';
import { CreatedKey, KeyList, NewKeyBody, RevokeKeyBody } from './api-keys.schemas.ts';
import * as keys from './api-keys.service.ts';

export function apiKeysRoutes(app: TypedApp, deps: Deps): void {
  app.post(
    '/api/user/api-keys',
    {
      schema: {
        summary: 'Create an API key (X-API-Key or session); the secret is shown once. Active keys are capped by tier',
        description:
          "Optionally limited: `scopes` (left out: every scope you may give; `moderation` for moderators and admins only, 403 for others), `expiresAt` (a future time; then 401 `API key expired`) and `allowedAddresses` (IPv4/IPv6 addresses and CIDRs; from any other address 403). An unknown scope, a time past or a bad address is a 400 naming it. Expired keys do not count against the tier's cap.",
        tags: ['api-keys'],
        body: NewKeyBody,
        response: { 201: CreatedKey, ...errors(400, 401, 403, 429) },
      },
      config: { auth: 'user', limit: 'keys', scope: 'account' },
    },
    async (req, reply) => reply.code(201).send(await keys.createKey(deps, viewerOf(req), req.body)),
  );

  app.get(
    '/api/user/api-keys',
    {
      schema: {
        summary: 'List your API keys, revoked ones included, with your tier and its key cap',
        tags: ['api-keys'],
        response: { 200: KeyList, ...errors(401, 429) },
      },
      config: { auth: 'user', limit: 'keys', scope: 'account' },
    },
    async (req) => keys.listKeys(deps, viewerOf(req)),
  );

  app.delete(
    '/api/user/api-keys',
    {
      schema: {
        summary: 'Revoke one of your API keys: JSON body { keyId }',
        tags: ['api-keys'],
        body: RevokeKeyBody,
        response: { 200: Message, ...errors(400, 401, 403, 404, 429) },
      },
      config: { auth: 'user', limit: 'keys', scope: 'account' },
    },
    async (req) => keys.revokeKey(deps, viewerOf(req), req.body),
  );
}
