import type { TypedApp } from '../../core/typed-app.ts';
import type { Deps } from '../../core/deps.ts';
import { viewerOf } from '../../core/auth.ts';
import { errors, Message, UsernameParams } from '../../core/schemas.ts';
import { listAudit } from './audit.service.ts';
import { banUser, getBan, unbanUser } from './bans.service.ts';
import {
  AuditList,
  AuditQuery,
  BanBody,
  BanEnvelope,
  NewReport,
  ReportEnvelope,
  ReportIdParams,
  ReportList,
  ReportListQuery,
  SettleReport,
} from './moderation.schemas.ts';
import { createReport, listReports, settleReport } from './reports.service.ts';

const BAN_RULE =
  'Moderators ban users; admins ban users and moderators; nobody bans an admin (403). While a ban applies, every POST, PUT, PATCH and DELETE of that user, by session or by any of their API keys, is 403 naming the reason and the end (`ban` in the body); reads, signing in and out and changing the password still work.';

export function moderationRoutes(app: TypedApp, deps: Deps): void {
  app.post(
    '/api/reports',
    {
      schema: {
        summary: 'Report a post or a comment to the moderators (signed in)',
        description:
          'Give `postId` or `commentId` (one) and a reason. One open report per user and post or comment: a second is 409 with the open one as `reportId`; once it is settled you may report again. An unknown post or comment is 404.',
        tags: ['moderation'],
        body: NewReport,
        response: { 201: ReportEnvelope, ...errors(400, 401, 403, 404, 409, 429) },
      },
      config: { auth: 'user', limit: 'write', scope: 'comments:write' },
    },
    async (req, reply) => reply.code(201).send(await createReport(deps, viewerOf(req), req.body)),
  );

  app.get(
    '/api/moderation/reports',
    {
      schema: {
        summary: 'Reports in one state, newest first (moderators)',
        tags: ['moderation'],
        querystring: ReportListQuery,
        response: { 200: ReportList, ...errors(400, 401, 403, 429) },
      },
      config: { auth: 'moderator' },
    },
    async (req) => listReports(deps, req.query),
  );

  app.patch(
    '/api/moderation/reports/:id',
    {
      schema: {
        summary: 'Resolve or dismiss an open report, with an optional note (moderators); recorded in the audit log',
        description: 'Only an open report is settled, once: a settled one is 409 naming its state.',
        tags: ['moderation'],
        params: ReportIdParams,
        body: SettleReport,
        response: { 200: ReportEnvelope, ...errors(400, 401, 403, 404, 409, 429) },
      },
      config: { auth: 'moderator' },
    },
    async (req) => settleReport(deps, viewerOf(req), req.params.id, req.body),
  );

  app.get(
    '/api/admin/users/:username/ban',
    {
      schema: {
        summary: 'The ban that applies to a user now (moderators and admins); 404 when none does',
        tags: ['moderation'],
        params: UsernameParams,
        response: { 200: BanEnvelope, ...errors(401, 403, 404, 429) },
      },
      config: { auth: 'moderator' },
    },
    async (req) => getBan(deps, req.params.username),
  );

  app.put(
    '/api/admin/users/:username/ban',
    {
      schema: {
        summary: 'Ban a user, until a time or for good; replaces a ban in force (moderators and admins)',
        description: BAN_RULE,
        tags: ['moderation'],
        params: UsernameParams,
        body: BanBody,
        response: { 200: BanEnvelope, ...errors(400, 401, 403, 404, 429) },
      },
      config: { auth: 'moderator' },
    },
    async (req) => banUser(deps, viewerOf(req), req.params.username, req.body),
  );

  app.delete(
    '/api/admin/users/:username/ban',
    {
      schema: {
        summary: "Lift a user's ban (moderators and admins); 404 when they have none",
        description: 'The same roles as banning may lift a ban. An expired ban may be lifted too (it already no longer applies).',
        tags: ['moderation'],
        params: UsernameParams,
        response: { 200: Message, ...errors(401, 403, 404, 429) },
      },
      config: { auth: 'moderator' },
    },
    async (req) => unbanUser(deps, viewerOf(req), req.params.username),
  );

  app.get(
    '/api/audit',
    {
      schema: {
        summary: 'The audit log of moderator and admin actions, newest first (moderators)',
        description:
          "Every change a moderator or an admin makes through the API or the command line (actor null): roles and tiers, bans and their lifting, report settling, tag changes (category, description, rename), aliases and implications made and deleted, bulk tag edits, and the edits and deletes of someone else's post, comment or pool (an owner's changes to their own things are not moderation and are not recorded). Each entry is written in the transaction of its change. Filters combine; `page` from 1, `limit` 1-200 (default 50).",
        tags: ['moderation'],
        querystring: AuditQuery,
        response: { 200: AuditList, ...errors(400, 401, 403, 429) },
      },
      config: { auth: 'moderator' },
    },
    async (req) => listAudit(deps, req.query),
  );
}
