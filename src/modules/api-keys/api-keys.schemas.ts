import { Type, type Static } from 'typebox';
import { Id, Timestamp } from '../../core/schemas.ts';

export const NewKeyBody = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 64, description: '1-64 characters (surrounding spaces trimmed)' }) },
  { additionalProperties: false },
);
export type NewKeyBody = Static<typeof NewKeyBody>;

export const RevokeKeyBody = Type.Object({ keyId: Type.String({ minLength: 1, maxLength: 32 }) }, { additionalProperties: false });
export type RevokeKeyBody = Static<typeof RevokeKeyBody>;

export const CreatedKey = Type.Object({
  id: Id,
  key: Type.String({ description: 'The secret: `ib_` + 43 base64url characters. Shown only in this response' }),
  name: Type.String(),
  prefix: Type.String({ description: 'The first characters of the secret, to tell keys apart later' }),
  createdAt: Timestamp,
});

export const KeyRecord = Type.Object({
  id: Id,
  name: Type.String(),
  prefix: Type.String(),
  lastUsed: Type.Union([Timestamp, Type.Null()], { description: 'null until the key is first used' }),
  createdAt: Timestamp,
  isActive: Type.Boolean({ description: 'false once revoked; revoked keys stay in the list' }),
});

export const KeyList = Type.Object({
  keys: Type.Array(KeyRecord),
  tier: Type.String({ description: "The user's tier" }),
  maxKeys: Type.Integer({ description: 'Active keys the tier allows (free 0, basic 1, pro 3, enterprise 5)' }),
});
