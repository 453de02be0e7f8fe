import { Type, type Static } from 'typebox';
import { Id, StringEnum, Timestamp } from '../../core/schemas.ts';
import { ROLES, TIERS } from '../../core/tiers.ts';

export const Username = Type.String({
  minLength: 3,
  maxLength: 32,
  pattern: '^[A-Za-z0-9_.-]+$',
  'x-pattern-message': 'may contain only letters, digits, _, . and -',
  description: '3-32 of A-Z a-z 0-9 _ . -; unique without regard to case',
});
export const Password = Type.String({ minLength: 8, maxLength: 256, description: '8-256 characters' });

export const RegisterBody = Type.Object(
  { username: Username, password: Password, email: Type.Optional(Type.String({ maxLength: 320, format: 'email' })) },
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

export const User = Type.Object({
  id: Id,
  username: Type.String(),
  role: StringEnum(ROLES),
  tier: StringEnum(TIERS),
  createdAt: Timestamp,
});
export const UserEnvelope = Type.Object({ user: User });
