import type { Deps, Viewer } from '../../core/deps.ts';
import { badRequest, conflict, notFound } from '../../core/errors.ts';
import { parseId } from '../../core/ids.ts';
import { iso, isoOrNull } from '../../core/schemas.ts';
import { isUniqueViolation } from '../../db/engine.ts';
import type { ReportsTable } from '../../db/types.ts';
import { pagination, userRef } from '../../core/lists.ts';
import { recordAudit } from './audit.repo.ts';
import type { NewReport, ReportListQuery, SettleReport } from './moderation.schemas.ts';

type Target = { type: ReportsTable['target_type']; id: number };

function targetOf(input: NewReport): Target {
  const given = [input.postId, input.commentId].filter((x) => x !== undefined).length;
  if (given !== 1) {
    const message = 'give exactly one of postId and commentId';
    badRequest(`field 'postId': ${message}`, [{ field: 'postId', message }]);
  }
  const [type, raw, what] = input.postId !== undefined ? (['post', input.postId, 'Post'] as const) : (['comment', input.commentId!, 'Comment'] as const);
  return { type, id: parseId(raw, what) };
}

const reportQuery = (deps: Deps) =>
  deps.db
    .selectFrom('reports')
    .leftJoin('users as r', 'r.id', 'reports.reporter_id')
    .leftJoin('users as s', 's.id', 'reports.settled_by')
    .selectAll('reports')
    .select(['r.username as reporter', 's.username as settler']);

type ReportRow = Awaited<ReturnType<ReturnType<typeof reportQuery>['executeTakeFirstOrThrow']>>;

const reportJson = (r: ReportRow) => ({
  id: String(r.id),
  postId: r.target_type === 'post' ? String(r.target_id) : null,
  commentId: r.target_type === 'comment' ? String(r.target_id) : null,
  reason: r.reason,
  state: r.state,
  note: r.note,
  reporter: userRef(r.reporter),
  createdAt: iso(r.created_at),
  settledBy: userRef(r.settler),
  settledAt: isoOrNull(r.settled_at),
});

const one = async (deps: Deps, id: number) => reportJson(await reportQuery(deps).where('reports.id', '=', id).executeTakeFirstOrThrow());

async function openReportOf(deps: Deps, viewer: Viewer, t: Target) {
  return deps.db
    .selectFrom('reports')
    .select('id')
    .where('reporter_id', '=', viewer.id)
    .where('target_type', '=', t.type)
    .where('target_id', '=', t.id)
    .where('state', '=', 'open')
    .executeTakeFirst();
}

const alreadyOpen = (id: number): never => conflict(`You already have an open report of this (report ${id})`, { reportId: String(id) });

/**
 * POST /api/reports (members): one open report per reporter and target; a second is 409 naming
 * the first. The unique index decides between two sent at once (from two instances even).
 */
export async function createReport(deps: Deps, viewer: Viewer, input: NewReport) {
  const target = targetOf(input);
  const reason = input.reason.trim();
  if (reason === '') badRequest("field 'reason' must not be blank", [{ field: 'reason', message: 'must not be blank' }]);
  const table = target.type === 'post' ? 'posts' : 'comments';
  const exists = await deps.db.selectFrom(table).select('id').where('id', '=', target.id).executeTakeFirst();
  if (!exists) notFound(target.type === 'post' ? 'Post' : 'Comment', String(target.id));
  const mine = await openReportOf(deps, viewer, target);
  if (mine) alreadyOpen(mine.id);
  try {
    const { id } = await deps.db
      .insertInto('reports')
      .values({ reporter_id: viewer.id, target_type: target.type, target_id: target.id, reason, state: 'open', created_at: deps.clock.now() })
      .returning('id')
      .executeTakeFirstOrThrow();
    return { report: await one(deps, id) };
  } catch (err) {
    const first = isUniqueViolation(err) ? await openReportOf(deps, viewer, target) : undefined;
    if (first) alreadyOpen(first.id);
    throw err;
  }
}

/** GET /api/moderation/reports (moderators): newest first. */
export async function listReports(deps: Deps, q: ReportListQuery) {
  const page = q.page ?? 1;
  const limit = q.limit ?? 50;
  const state = q.state ?? 'open';
  const [rows, total] = await Promise.all([
    reportQuery(deps)
      .where('reports.state', '=', state)
      .orderBy('reports.id', 'desc')
      .limit(limit)
      .offset((page - 1) * limit)
      .execute(),
    deps.db
      .selectFrom('reports')
      .where('state', '=', state)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  return { reports: rows.map(reportJson), pagination: pagination(Number(total.n), page, limit) };
}

/**
 * PATCH /api/moderation/reports/<id> (moderators): an open report becomes resolved or dismissed,
 * once; settling a settled one is 409 naming its state. The audit entry is in the same transaction.
 */
export async function settleReport(deps: Deps, viewer: Viewer, rawId: string, input: SettleReport) {
  const id = parseId(rawId, 'Report');
  const now = deps.clock.now();
  await deps.db.transaction().execute(async (trx) => {
    const settled = await trx
      .updateTable('reports')
      .set({ state: input.state, note: input.note ?? null, settled_by: viewer.id, settled_at: now })
      .where('id', '=', id)
      .where('state', '=', 'open')
      .returning(['target_type', 'target_id', 'reason', 'reporter_id'])
      .executeTakeFirst();
    if (!settled) {
      const found = await trx.selectFrom('reports').select('state').where('id', '=', id).executeTakeFirst();
      if (!found) notFound('Report', rawId);
      conflict(`Report ${id} is already ${found!.state}`);
    }
    const reporter = await trx.selectFrom('users').select('username').where('id', '=', settled!.reporter_id).executeTakeFirst();
    await recordAudit(trx, viewer, now, {
      action: input.state === 'resolved' ? 'report.resolve' : 'report.dismiss',
      target: `report:${id}`,
      details: {
        [settled!.target_type === 'post' ? 'postId' : 'commentId']: String(settled!.target_id),
        reason: settled!.reason,
        reporter: reporter?.username ?? null,
        note: input.note ?? null,
      },
    });
  });
  return { report: await one(deps, id) };
}
