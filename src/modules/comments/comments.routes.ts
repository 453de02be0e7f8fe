import type { TypedApp } from '../../core/typed-app.ts';
import type { Deps } from '../../core/deps.ts';
import { viewerOf } from '../../core/auth.ts';
import { errors, Message, PostIdParams } from '../../core/schemas.ts';
import { CommentCreated, CommentIdParams, CommentList, CommentPage, NewComment } from './comments.schemas.ts';
import * as comments from './comments.service.ts';

export function commentsRoutes(app: TypedApp, deps: Deps): void {
  app.post(
    '/api/comments',
    {
      schema: {
        summary: 'Post a comment, or a reply with parentId (session or API key)',
        tags: ['comments'],
        body: NewComment,
        response: { 201: CommentCreated, ...errors(400, 401, 403, 404, 429) },
      },
      config: { auth: 'user', limit: 'comments', scope: 'comments:write' },
    },
    async (req, reply) => reply.code(201).send(await comments.createComment(deps, viewerOf(req), req.body)),
  );

  app.get(
    '/api/posts/:id/comments',
    {
      schema: {
        summary: "A post's comments, oldest first, with parentId and reply counts for threads",
        tags: ['comments'],
        params: PostIdParams,
        querystring: CommentPage,
        response: { 200: CommentList, ...errors(400, 401, 404, 429) },
      },
      config: { limit: 'post' },
    },
    async (req) => comments.listComments(deps, req.params.id, req.query.page ?? 1, req.query.limit ?? 50),
  );

  app.delete(
    '/api/comments/:id',
    {
      schema: {
        summary: 'Delete a comment and its replies (its author or a moderator)',
        tags: ['comments'],
        params: CommentIdParams,
        response: { 200: Message, ...errors(401, 403, 404, 429) },
      },
      config: { auth: 'user', limit: 'write', scope: 'comments:write' },
    },
    async (req) => comments.deleteComment(deps, viewerOf(req), req.params.id),
  );
}
