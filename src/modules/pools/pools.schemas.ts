import { Type, type Static } from 'typebox';
import { Id, Timestamp } from '../../core/schemas.ts';

export const PoolListQuery = Type.Object(
  {
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  },
  { additionalProperties: false },
);
export type PoolListQuery = Static<typeof PoolListQuery>;

export const Pool = Type.Object({
  _id: Id,
  name: Type.String(),
  description: Type.String(),
  postCount: Type.Integer(),
  isPublic: Type.Boolean(),
  creator: Type.Object({ username: Type.String() }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const PoolList = Type.Object({
  pools: Type.Array(Pool, { description: 'Most recently updated first; private pools only for their creator' }),
  totalPools: Type.Integer(),
  page: Type.Integer(),
  totalPages: Type.Integer(),
});
