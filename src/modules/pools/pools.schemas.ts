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

const Name = Type.String({ minLength: 1, maxLength: 128, pattern: '\\S', 'x-pattern-message': 'must not be empty' });
const Description = Type.String({ maxLength: 5000 });
const PostIdList = Type.Array(Type.String({ maxLength: 32 }), { maxItems: 1000 });

export const NewPool = Type.Object(
  { name: Name, description: Type.Optional(Description), isPublic: Type.Optional(Type.Boolean({ default: true })), postIds: Type.Optional(PostIdList) },
  { additionalProperties: false },
);
export type NewPool = Static<typeof NewPool>;

export const PoolPatch = Type.Object(
  { name: Type.Optional(Name), description: Type.Optional(Description), isPublic: Type.Optional(Type.Boolean()) },
  { additionalProperties: false, minProperties: 1 },
);
export type PoolPatch = Static<typeof PoolPatch>;

export const AddPoolPost = Type.Object(
  { postId: Type.String({ minLength: 1, maxLength: 32 }), position: Type.Optional(Type.Integer({ minimum: 1, description: '1-based; default: the end' })) },
  { additionalProperties: false },
);
export const Reorder = Type.Object({ postIds: PostIdList }, { additionalProperties: false });
export const PoolIdParams = Type.Object({ id: Type.String({ maxLength: 32 }) });
export const PoolPostParams = Type.Object({ id: Type.String({ maxLength: 32 }), postId: Type.String({ maxLength: 32 }) });
export const PoolEnvelope = Type.Object({ pool: Pool });
