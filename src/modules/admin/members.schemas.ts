import { Type, type Static } from 'typebox';
import { Id, StringEnum, Timestamp } from '../../core/schemas.ts';
import { ROLES, TIERS } from '../../core/tiers.ts';

export const MEMBER_SORTS = ['newest', 'name'] as const;

export const MemberListQuery = Type.Object(
  {
    search: Type.Optional(Type.String({ minLength: 1, maxLength: 32, description: 'Only users whose name contains this, in any case' })),
    role: Type.Optional(StringEnum(ROLES, { description: 'Only users with this role' })),
    sort: Type.Optional(StringEnum(MEMBER_SORTS, { default: 'newest', description: 'newest: the newest account first; name: by username, A to Z' })),
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
  },
  { additionalProperties: false },
);
export type MemberListQuery = Static<typeof MemberListQuery>;

export const Member = Type.Object({
  id: Id,
  username: Type.String(),
  role: StringEnum(ROLES),
  tier: StringEnum(TIERS),
  createdAt: Timestamp,
  lastSeenAt: Type.Union([Timestamp, Type.Null()], { description: 'The last request signed in as them (to the minute); null: never' }),
  ban: Type.Union([Type.Object({ reason: Type.String(), until: Type.Union([Timestamp, Type.Null()], { description: 'null: permanent' }) }), Type.Null()], {
    description: 'The ban in force now; null when none applies (details and who made it: GET /api/admin/users/<username>/ban)',
  }),
});

export const MemberList = Type.Object({
  users: Type.Array(Member),
  pagination: Type.Object({ total: Type.Integer(), page: Type.Integer(), perPage: Type.Integer(), totalPages: Type.Integer() }),
});
