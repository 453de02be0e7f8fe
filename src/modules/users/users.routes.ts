import type { TypedApp } from '../../core/typed-app.ts';
import type { Deps } from '../../core/deps.ts';
import { errors, UsernameParams } from '../../core/schemas.ts';
import { UserProfile } from './users.schemas.ts';
import * as users from './users.service.ts';

export function usersRoutes(app: TypedApp, deps: Deps): void {
  app.get(
    '/api/users/:username',
    {
      schema: {
        summary: 'A user profile with activity counts',
        tags: ['users'],
        params: UsernameParams,
        response: { 200: UserProfile, ...errors(401, 404, 429) },
      },
      config: { limit: 'user' },
    },
    async (req) => users.getProfile(deps, req.params.username),
  );
}
