import { Type, type Static } from 'typebox';
import { Id, StringEnum, Timestamp } from '../../core/schemas.ts';
import { ROLES, TIERS } from '../../core/tiers.ts';
import { REGISTRATION_MODES } from '../../config.ts';
import { InviteCode } from '../invites/invites.schemas.ts';

export const Username = Type.String({
  minLength: 3,
  maxLength: 32,
  pattern: '^[A-Za-z0-9_.-]+$',
  'x-pattern-message': 'may contain only letters, digits, _, . and -',
  description: '3-32 of A-Z a-z 0-9 _ . -; unique without regard to case',
});
export const Password = Type.String({ minLength: 8, maxLength: 256, description: '8-256 characters' });

export const RegisterBody = Type.Object(
  {
    username: Username,
    password: Password,
    email: Type.Optional(Type.String({ maxLength: 320, format: 'email' })),
    invite: Type.Optional({
      ...InviteCode,
      description:
        'Needed when registration is by invite (`GET /api/auth/registration`); then a missing, unknown, used or expired code is 403, ' +
        'and a string that cannot be a code is 400. With open registration no code is needed, and one sent is not spent ' +
        '(a string of the wrong shape is still a 400)',
    }),
  },
  { additionalProperties: false },
);
export type RegisterBody = Static<typeof RegisterBody>;

export const LoginBody = Type.Object(
  { username: Type.String({ minLength: 1, maxLength: 64 }), password: Type.String({ minLength: 1, maxLength: 256 }) },
  { additionalProperties: false },
);
export type LoginBody = Static<typeof LoginBody>;

export const PasswordChangeBody = Type.Object(
  { currentPassword: Type.String({ minLength: 1, maxLength: 256 }), newPassword: Password },
  { additionalProperties: false },
);
export type PasswordChangeBody = Static<typeof PasswordChangeBody>;

/** 43 base64url characters: the token of a reset link. */
export const ResetBody = Type.Object(
  {
    token: Type.String({
      pattern: '^[A-Za-z0-9_-]{43}$',
      'x-pattern-message': 'is not a reset token: copy the whole link',
      description: 'The `token` of the link `imageboard user reset-password` printed',
    }),
    password: Password,
  },
  { additionalProperties: false },
);
export type ResetBody = Static<typeof ResetBody>;

export const Registration = Type.Object({
  mode: StringEnum(REGISTRATION_MODES, {
    description:
      '`open`: anyone may register; `invite`: registering needs an invite code (field `invite`) an admin made; `closed`: no one may (403), accounts come from the command line',
  }),
});

export const User = Type.Object({
  id: Id,
  username: Type.String(),
  role: StringEnum(ROLES),
  tier: StringEnum(TIERS),
  createdAt: Timestamp,
});
export const UserEnvelope = Type.Object({ user: User });
export const SessionEnvelope = Type.Object({
  user: Type.Union([User, Type.Null()], { description: 'The signed-in user; null for a visitor (no session, or one that ended or expired)' }),
});
