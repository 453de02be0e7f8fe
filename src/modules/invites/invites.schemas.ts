import { Type, type Static } from 'typebox';
import { Id, StringEnum, Timestamp } from '../../core/schemas.ts';

export const INVITE_PREFIX = 'inv_';
/** The prefix and 256 random bits, base64url: anything else cannot be a code (400, not 403). */
export const InviteCode = Type.String({
  pattern: '^inv_[A-Za-z0-9_-]{43}$',
  'x-pattern-message': "is not an invite code (they look like inv_ followed by 43 letters, digits, '-' or '_')",
  description: 'A one-time invite code from `POST /api/admin/invites` (`inv_` + 43 base64url characters)',
});

const YEAR_SECONDS = 365 * 86_400;

export const NewInviteBody = Type.Object(
  {
    expiresIn: Type.Optional(
      Type.Integer({
        minimum: 60,
        maximum: YEAR_SECONDS,
        description: 'Seconds until the code stops working (60 to one year). Left out: it works until it is used',
      }),
    ),
    note: Type.Optional(Type.String({ maxLength: 200, description: 'For admins only: whom the code is for (shown in the list)' })),
  },
  { additionalProperties: false },
);
export type NewInviteBody = Static<typeof NewInviteBody>;

const INVITE_STATES = ['unused', 'used', 'expired'] as const;
const who = (description: string) => Type.Union([Type.Object({ username: Type.String() }), Type.Null()], { description });

export const Invite = Type.Object({
  id: Id,
  note: Type.String(),
  status: StringEnum(INVITE_STATES, { description: '`unused` codes still work; `used` and `expired` ones never will' }),
  createdBy: who('The admin who made it; null when made by an account since deleted'),
  createdAt: Timestamp,
  expiresAt: Type.Union([Timestamp, Type.Null()], { description: 'null: never expires' }),
  usedBy: who('The account that registered with it; null while unused (or once that account is deleted)'),
  usedAt: Type.Union([Timestamp, Type.Null()]),
});

export const InviteCreated = Type.Object({
  invite: Invite,
  code: Type.String({ description: 'The code, shown this once: only its hash is stored. Give it to the person you invite' }),
});

export const InviteIdParams = Type.Object({ id: Type.String({ maxLength: 32 }) });

export const InviteListQuery = Type.Object(
  {
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  },
  { additionalProperties: false },
);
export type InviteListQuery = Static<typeof InviteListQuery>;

export const InviteList = Type.Object({
  invites: Type.Array(Invite, { description: 'Newest first' }),
  total: Type.Integer(),
  page: Type.Integer(),
  totalPages: Type.Integer(),
});
