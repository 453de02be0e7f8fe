import { sql } from 'kysely';
import { banJson, inForce } from '../../core/bans.ts';
import type { Deps } from '../../core/deps.ts';
import { iso, isoOrNull } from '../../core/schemas.ts';
import type { Role, Tier } from '../../core/tiers.ts';
import { pagination } from '../../core/lists.ts';
import type { MemberListQuery } from './members.schemas.ts';

/** GET /api/admin/users (moderators): the accounts, a page at a time, each with its ban in force. */
export async function listMembers(deps: Deps, q: MemberListQuery) {
  const page = q.page ?? 1;
  const limit = q.limit ?? 50;
  const now = deps.clock.now();
  const base = deps.db
    .selectFrom('users')
    .$if(q.search !== undefined, (qb) => qb.where(deps.db.containsInsensitive(sql.ref('users.username_lower'), q.search!)))
    .$if(q.role !== undefined, (qb) => qb.where('users.role', '=', q.role!));
  const byName = q.sort === 'name';
  const [rows, total] = await Promise.all([
    base
      // An expired ban no longer applies: it is shown as none.
      .leftJoin('user_bans', (join) => join.onRef('user_bans.user_id', '=', 'users.id').on(inForce(now)))
      .select(['users.id', 'users.username', 'users.role', 'users.tier', 'users.created_at', 'users.last_seen_at', 'user_bans.reason', 'user_bans.until'])
      .orderBy(byName ? 'users.username_lower' : 'users.created_at', byName ? 'asc' : 'desc')
      .orderBy('users.id', 'desc')
      .limit(limit)
      .offset((page - 1) * limit)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
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
