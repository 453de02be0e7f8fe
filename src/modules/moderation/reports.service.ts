import type { Deps, Viewer } from '../../core/deps.ts';
import { badRequest, conflict, notFound } from '../../core/errors.ts';
import { parseId } from '../../core/ids.ts';
import { iso, isoOrNull } from '../../core/schemas.ts';
import { isUniqueViolation } from '../../db/engine.ts';
import { pagination, userRef } from '../../core/lists.ts';
import { recordAudit } from './audit.repo.ts';
import * as repo from './reports.repo.ts';
import type { ReportRow, ReportTarget } from './reports.repo.ts';
import type { NewReport, ReportListQuery, SettleReport } from './moderation.schemas.ts';

function targetOf(input: NewReport): ReportTarget {
  const given = [input.postId, input.commentId].filter((x) => x !== undefined).length;
  if (given !== 1) {
    const message = 'give exactly one of postId and commentId';
    badRequest(`field 'postId': ${message}`, [{ field: 'postId', message }]);
  }
  const [type, raw, what] = input.postId !== undefined ? (['post', input.postId, 'Post'] as const) : (['comment', input.commentId!, 'Comment'] as const);
  return { type, id: parseId(raw, what) };
}

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

const one = async (deps: Deps, id: number) => reportJson(await repo.reportById(deps.db, id));

const openReportOf = (deps: Deps, viewer: Viewer, t: ReportTarget) => repo.findOpenReport(deps.db, viewer.id, t);

const alreadyOpen = (id: number): never => conflict(`You already have an open report of this (report ${id})`, { reportId: String(id) });

/**
 * POST /api/reports (members): one open report per reporter and target; a second is 409 naming
 * the first. The unique index decides between two sent at once (from two instances even).
 */
export async function createReport(deps: Deps, viewer: Viewer, input: NewReport) {
  const target = targetOf(input);
  const reason = input.reason.trim();
  if (reason === '') badRequest("field 'reason' must not be blank", [{ field: 'reason', message: 'must not be blank' }]);
  if (!(await repo.targetExists(deps.db, target))) notFound(target.type === 'post' ? 'Post' : 'Comment', String(target.id));
  const mine = await openReportOf(deps, viewer, target);
  if (mine) alreadyOpen(mine.id);
  try {
    const id = await repo.insertReport(deps.db, viewer.id, target, reason, deps.clock.now());
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
  const { rows, total } = await repo.reportsPage(deps.db, state, limit, (page - 1) * limit);
  return { reports: rows.map(reportJson), pagination: pagination(total, page, limit) };
}

/**
 * PATCH /api/moderation/reports/<id> (moderators): an open report becomes resolved or dismissed,
 * once; settling a settled one is 409 naming its state. The audit entry is in the same transaction.
 */
export async function settleReport(deps: Deps, viewer: Viewer, rawId: string, input: SettleReport) {
  const id = parseId(rawId, 'Report');
  const now = deps.clock.now();
  await deps.db.transaction().execute(async (trx) => {
    const settled = await repo.settleOpenReport(trx, id, { state: input.state, note: input.note ?? null, settledBy: viewer.id, at: now });
    if (!settled) {
      const found = await repo.findReportState(trx, id);
      if (!found) notFound('Report', rawId);
      conflict(`Report ${id} is already ${found!.state}`);
    }
    const reporter = await repo.findUsername(trx, settled!.reporter_id);
    await recordAudit(trx, viewer, now, {
      action: input.state === 'resolved' ? 'report.resolve' : 'report.dismiss',
      target: `report:${id}`,
      details: {
        [settled!.target_type === 'post' ? 'postId' : 'commentId']: String(settled!.target_id),
        reason: settled!.reason,
        reporter: reporter ?? null,
        note: input.note ?? null,
      },
    });
  });
  return { report: await one(deps, id) };
}
