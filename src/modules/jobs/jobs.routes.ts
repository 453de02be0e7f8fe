import type { TypedApp } from '../../core/typed-app.ts';
import type { Deps } from '../../core/deps.ts';
import { viewerOf } from '../../core/auth.ts';
import { errors } from '../../core/schemas.ts';
import { Job, JobIdParams } from '../../jobs/jobs.schemas.ts';
import * as jobs from '../../jobs/jobs.service.ts';

export function jobsRoutes(app: TypedApp, deps: Deps): void {
  app.get(
    '/api/jobs/:id',
    {
      schema: {
        summary: "A background job's state and progress (its creator or a moderator)",
        description:
          'Long work (a backfill of a tag implication, a retag after an alias, a bulk tag edit) is answered 202 `{ job }` and done in the background, in steps that each save their progress, so a job survives a restart and resumes where it stopped. Poll this until `state` is `done` or `failed`. Only the user who started the job, moderators and admins may read it: anyone else signed in gets 403.',
        tags: ['jobs'],
        params: JobIdParams,
        response: { 200: Job, ...errors(401, 403, 404, 429) },
      },
      config: { auth: 'user' },
    },
    async (req) => jobs.getJob(deps, viewerOf(req), req.params.id),
  );
}
