import { Type, type Static } from 'typebox';
import { Id, Timestamp } from '../../core/schemas.ts';
import { SCOPES } from '../../core/scopes.ts';

const ScopeList = Type.Array(Type.String({ maxLength: 40 }), {
  description: `What the key may do: ${SCOPES.join(', ')} (moderation: moderators and admins only)`,
});
const AddressList = Type.Array(Type.String({ maxLength: 64 }), {
  description: 'IPv4 or IPv6 addresses and CIDR ranges (`203.0.113.7`, `10.0.0.0/8`, `2001:db8::/32`) the key may be used from; empty: any address',
});

export const NewKeyBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 64, description: '1-64 characters (surrounding spaces trimmed)' }),
    scopes: Type.Optional(
      Type.Array(Type.String({ maxLength: 40 }), {
        minItems: 1,
        maxItems: 20,
        description: `What the key may do, from: ${SCOPES.join(', ')}. Left out: every scope you may give (moderation only for moderators and admins)`,
      }),
    ),
    expiresAt: Type.Optional(Type.String({ format: 'date-time', description: 'When the key stops working (ISO 8601, in the future); left out: never' })),
    allowedAddresses: Type.Optional(
      Type.Array(Type.String({ maxLength: 64 }), {
        maxItems: 20,
        description: 'Addresses and CIDR ranges, IPv4 or IPv6, the key may be used from; left out or empty: any address',
      }),
    ),
  },
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
  scopes: ScopeList,
  expiresAt: Type.Union([Timestamp, Type.Null()], { description: 'When the key stops working; null: never' }),
  allowedAddresses: AddressList,
});

export const KeyRecord = Type.Object({
  id: Id,
  name: Type.String(),
  prefix: Type.String(),
  lastUsed: Type.Union([Timestamp, Type.Null()], { description: 'null until the key is first used' }),
  createdAt: Timestamp,
  isActive: Type.Boolean({ description: 'false once revoked; revoked keys stay in the list (an expired key stays true: see expiresAt)' }),
  scopes: ScopeList,
  expiresAt: Type.Union([Timestamp, Type.Null()], { description: 'When the key stops working (401 from then on); null: never' }),
  allowedAddresses: AddressList,
  lastUsedFrom: Type.Union([Type.String(), Type.Null()], { description: 'The client address of its last use; null until first used' }),
});

export const KeyList = Type.Object({
  keys: Type.Array(KeyRecord),
  tier: Type.String({ description: "The user's tier" }),
  maxKeys: Type.Integer({ description: 'Active keys the tier allows (free 0, basic 1, pro 3, enterprise 5)' }),
});
