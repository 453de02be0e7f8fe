import { Type } from 'typebox';

/** Danbooru's clients send parameters of their own (`login`, `api_key`, `only`, `search[...]`): unknown ones are ignored, not refused. */
const open = { additionalProperties: true } as const;

/** The error answer of every route of Danbooru's API. */
export const DanbooruError = Type.Object(
  {
    success: Type.Literal(false),
    error: Type.String({ description: "The kind of failure, named as Danbooru's classes name it (ActiveRecord::RecordNotFound, ...)" }),
    message: Type.String(),
  },
  { description: "Danbooru's error shape; statuses 401, 403, 404, 410 (page past 1000), 422 (a bad parameter or query), 429 (rate limit, with Retry-After)" },
);

/** The error answers of a route of Danbooru's API, by status. */
export const danbooruErrors = (...statuses: number[]) => Object.fromEntries(statuses.map((s) => [s, DanbooruError]));

export const CountsQuery = Type.Object(
  { tags: Type.Optional(Type.String({ maxLength: 1000, description: 'A search in the query language (Danbooru spellings accepted)' })) },
  open,
);

export const Counts = Type.Object({ counts: Type.Object({ posts: Type.Integer() }) });
