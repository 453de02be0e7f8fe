import { Type } from 'typebox';
import type { TypedApp } from '../../core/typed-app.ts';
import type { Deps } from '../../core/deps.ts';
import { viewerOf } from '../../core/auth.ts';
import { errors, PostIdParams } from '../../core/schemas.ts';
import { PostDetail } from '../posts/posts.schemas.ts';
import { PendingList, PendingQuery, RejectBody } from './approval.schemas.ts';
import { approve, listPending, reject } from './approval.service.ts';

const QUEUE_TEXT =
  "Uploads held for approval (setting UPLOAD_APPROVAL: `off`, `new-users` — fewer published posts than UPLOAD_APPROVAL_MIN_POSTS —, or `all`; moderators' and admins' uploads are never held). " +
  'A held upload has its post id from the upload answer (`post.pending: true`) and keeps it once published, with its upload time as its date. ' +
  'Until then only its uploader and the moderators see it, at GET /api/posts/<id> (with `pending: true`); to everyone else, and in every list, search, count, profile, tag, similar-image and Danbooru-API answer, it does not exist. ' +
  'Likes, favourites, comments, pool entries and edits of it are 404 until it is published; its uploader may withdraw it with DELETE /api/posts/<id>.';

export function approvalRoutes(app: TypedApp, deps: Deps): void {
  app.get(
    '/api/moderation/pending',
    {
      schema: {
        summary: 'Uploads waiting for approval, oldest first (moderators)',
        description: QUEUE_TEXT,
        tags: ['moderation'],
        querystring: PendingQuery,
        response: { 200: PendingList, ...errors(400, 401, 403, 429) },
      },
      config: { auth: 'moderator' },
    },
    async (req) => listPending(deps, req.query, null),
  );

  app.get(
    '/api/users/me/pending',
    {
      schema: {
        summary: 'Your own uploads waiting for approval, oldest first (signed in)',
        description: 'The same items as GET /api/moderation/pending, of your uploads only.',
        tags: ['users'],
        querystring: PendingQuery,
        response: { 200: PendingList, ...errors(400, 401, 429) },
      },
      config: { auth: 'user' },
    },
    async (req) => listPending(deps, req.query, viewerOf(req).id),
  );

  app.post(
    '/api/posts/:id/approve',
    {
      schema: {
        summary: 'Publish an upload waiting for approval (moderators); recorded in the audit log as post.approve',
        description:
          'Answers the published post. Its tags go through the same path as any upload (aliases read as their targets, implied tags added, tag counts move). ' +
          'A post that is already published is 409; an unknown one 404. Of two moderators approving at once one wins, the other gets 409. ' +
          'Nobody approves their own upload (403).',
        tags: ['moderation'],
        params: PostIdParams,
        response: { 200: PostDetail, ...errors(400, 401, 403, 404, 409, 429) },
      },
      config: { auth: 'moderator', limit: 'write' },
    },
    async (req) => approve(deps, viewerOf(req), req.params.id),
  );

  app.post(
    '/api/posts/:id/reject',
    {
      schema: {
        summary: 'Reject an upload waiting for approval: it is deleted with its media (moderators); recorded in the audit log as post.reject',
        description: 'Send a JSON body, `{}` or `{ "reason": "..." }`. Answers 204. A published post is 409 (delete it instead); an unknown one 404.',
        tags: ['moderation'],
        params: PostIdParams,
        body: RejectBody,
        response: { 204: Type.Null({ description: 'Rejected: the upload and its media are deleted' }), ...errors(400, 401, 403, 404, 409, 429) },
      },
      config: { auth: 'moderator', limit: 'write' },
    },
    async (req, reply) => {
      await reject(deps, viewerOf(req), req.params.id, req.body?.reason?.trim() || null);
      return reply.code(204).send(null);
    },
  );
}
