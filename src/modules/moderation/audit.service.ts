import type { Deps } from '../../core/deps.ts';
import { iso } from '../../core/schemas.ts';
import { pagination, userRef } from '../../core/lists.ts';
import { auditPage, findActorId, type AuditAction } from './audit.repo.ts';
import type { AuditQuery } from './moderation.schemas.ts';

/** GET /api/audit (moderators): newest first; an actor who is no user has no entries. */
export async function listAudit(deps: Deps, q: AuditQuery) {
  const page = q.page ?? 1;
  const limit = q.limit ?? 50;
  let actorId: number | undefined;
  if (q.actor !== undefined) {
    actorId = (await findActorId(deps.db, q.actor)) ?? -1;
  }
  const { rows, total } = await auditPage(deps.db, { actorId, action: q.action, target: q.target }, limit, (page - 1) * limit);
  return {
    entries: rows.map((r) => ({
      id: String(r.id),
      actor: userRef(r.actor_name),
      action: r.action as AuditAction,
      target: r.target,
      details: JSON.parse(r.details) as Record<string, unknown>,
      createdAt: iso(r.created_at),
    })),
    pagination: pagination(total, page, limit),
  };
}
