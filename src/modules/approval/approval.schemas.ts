import { Type, type Static } from 'typebox';
import { Id, RATINGS, RelativePath, StringEnum, Timestamp } from '../../core/schemas.ts';

export const PendingQuery = Type.Object(
  {
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  },
  { additionalProperties: false },
);
export type PendingQuery = Static<typeof PendingQuery>;

export const PendingItem = Type.Object({
  id: Id,
  title: Type.String(),
  thumbnail: RelativePath,
  uploader: Type.Object({ username: Type.String() }),
  createdAt: Timestamp,
  tags: Type.Array(Type.String(), { description: 'The tags asked for at upload; aliases and implications apply when it is published' }),
  contentRating: StringEnum(RATINGS),
});

export const PendingList = Type.Object({
  posts: Type.Array(PendingItem),
  pagination: Type.Object(
    { total: Type.Integer(), page: Type.Integer(), perPage: Type.Integer(), totalPages: Type.Integer() },
    { description: '`page` from 1, `limit` per page (1-200, default 50)' },
  ),
});

export const RejectBody = Type.Object(
  { reason: Type.Optional(Type.String({ maxLength: 1000, description: 'Why, for the audit log (up to 1,000 characters)' })) },
  { additionalProperties: false },
);
export type RejectBody = Static<typeof RejectBody>;
