import { Type, type Static } from 'typebox';
import { Id, RelativePath, Timestamp } from '../../core/schemas.ts';

export const MAX_COMMENT = 5000;

export const NewComment = Type.Object(
  {
    postId: Type.String({ minLength: 1, maxLength: 32 }),
    content: Type.String({ minLength: 1, maxLength: MAX_COMMENT, description: `1-${MAX_COMMENT} characters (not only spaces)` }),
    parentId: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: 32 }), Type.Null()], {
        description: 'A comment of the same post to reply to; null or missing for a top-level comment',
      }),
    ),
  },
  { additionalProperties: false },
);
export type NewComment = Static<typeof NewComment>;

export const Comment = Type.Object({
  id: Id,
  postId: Id,
  parentId: Type.Union([Id, Type.Null()]),
  content: Type.String(),
  author: Type.Object({ username: Type.String(), avatar: RelativePath }),
  createdAt: Timestamp,
  replyCount: Type.Integer({ description: 'Direct replies to this comment' }),
});

export const CommentCreated = Type.Object({ message: Type.String(), comment: Comment });

export const CommentPage = Type.Object(
  {
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
  },
  { additionalProperties: false },
);

export const CommentList = Type.Object({
  comments: Type.Array(Comment, { description: 'Oldest first; build threads from parentId' }),
  total: Type.Integer(),
  page: Type.Integer(),
  totalPages: Type.Integer(),
});

export const CommentIdParams = Type.Object({ id: Type.String({ maxLength: 32 }) });
