import { Type, type Static } from 'typebox';
import { Id, StringEnum } from '../core/schemas.ts';

export const JOB_STATES = ['queued', 'running', 'done', 'failed'] as const;

export const Job = Type.Object(
  {
    id: Id,
    kind: Type.String({ description: 'What the job does, e.g. a backfill of a tag implication onto existing posts' }),
    state: StringEnum(JOB_STATES, {
      description:
        'queued: waiting for a server process to take it (also after its process stopped, until another takes it over); running; done; failed (see error)',
    }),
    done: Type.Integer({ description: 'Items done so far (posts, for the jobs that go over posts)' }),
    total: Type.Integer({
      description: 'Items in all, counted when the job was made; never below done, and equal to done once the job is done',
    }),
    error: Type.Union([Type.String(), Type.Null()], { description: 'Why the job failed; null unless state is failed' }),
  },
  { description: 'A background job and its progress' },
);
export type Job = Static<typeof Job>;

export const JobIdParams = Type.Object({ id: Type.String({ maxLength: 32 }) });
