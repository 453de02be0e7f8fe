import type { TypedApp } from '../../core/typed-app.ts';
import type { Deps } from '../../core/deps.ts';
import { viewerOf } from '../../core/auth.ts';
import { errors } from '../../core/schemas.ts';
import { Preferences } from './preferences.schemas.ts';
import { getPreferences, putPreferences } from './preferences.service.ts';

export function preferencesRoutes(app: TypedApp, deps: Deps): void {
  app.get(
    '/api/users/me/preferences',
    {
      schema: {
        summary: 'Your personal filters of GET /api/posts: the blacklist and the ratings shown',
        description: 'Defaults for a member who saved none: `{ blacklist: [], ratings: ["safe", "sketchy", "unsafe"] }`.',
        tags: ['users'],
        response: { 200: Preferences, ...errors(401, 429) },
      },
      config: { auth: 'user' },
    },
    async (req) => getPreferences(deps, viewerOf(req)),
  );

  app.put(
    '/api/users/me/preferences',
    {
      schema: {
        summary: 'Replace your personal filters; answers them',
        description:
          'Both fields are required: the body replaces the whole object. Each blacklist entry is checked as `q` would be: a syntax error, a bad metatag value or `order:` is a 400 whose details give ' +
          'field `blacklist[i]`, the message and the character `position` in that entry. Applies at once, on every instance (read from the database on each list request).',
        tags: ['users'],
        body: Preferences,
        response: { 200: Preferences, ...errors(400, 401, 403, 429) },
      },
      config: { auth: 'user', limit: 'write', scope: 'read' },
    },
    async (req) => putPreferences(deps, viewerOf(req), req.body),
  );
}
