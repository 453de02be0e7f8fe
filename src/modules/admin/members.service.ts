import { banJson } from '../../core/bans.ts';
import type { Deps } from '../../core/deps.ts';
import { iso, isoOrNull } from '../../core/schemas.ts';
import type { Role, Tier } from '../../core/tiers.ts';
import { pagination } from '../../core/lists.ts';
import type { MemberListQuery } from './members.schemas.ts';
import * as repo from './members.repo.ts';

/** GET /api/admin/users (moderators): the accounts, a page at a time, each with its ban in force. */
export async function listMembers(deps: Deps, q: MemberListQuery) {
  const page = q.page ?? 1;
  const limit = q.limit ?? 50;
  const now = deps.clock.now();
  const [rows, total] = await Promise.all([repo.listMembersPage(deps.db, q, now, limit, (page - 1) * limit), repo.countMembers(deps.db, q)]);
  return {
    users: rows.map((r) => ({
      id: String(r.id),
      username: r.username,
      role: r.role as Role,
      tier: r.tier as Tier,
      createdAt: iso(r.created_at),
      lastSeenAt: isoOrNull(r.last_seen_at),
      ban: r.reason === null ? null : banJson({ reason: r.reason, until: r.until }),
    })),
    pagination: pagination(Number(total.n), page, limit),
  };
}
