import { banEnd } from '../../core/bans.ts';
import type { Deps, Viewer } from '../../core/deps.ts';
import { badRequest, forbidden, notFound } from '../../core/errors.ts';
import { iso, isoOrNull } from '../../core/schemas.ts';
import type { Tx } from '../../db/engine.ts';
import { userRef } from '../../core/lists.ts';
import { recordAudit } from './audit.repo.ts';
import { banInForce, banOfUser, type BanRow, deleteBan, findUserByName, upsertBan } from './bans.repo.ts';
import type { BanBody } from './moderation.schemas.ts';

const RANK = { user: 0, moderator: 1, admin: 2 } as const;

/** Who may ban whom: only someone of a lower role (a moderator bans users; an admin, users and moderators). */
async function bannable(trx: Tx, by: Viewer, username: string) {
  const user = await findUserByName(trx, username);
  if (!user) return notFound('User', username);
  if (RANK[user.role as Viewer['role']] >= RANK[by.role]) forbidden(`A ${by.role} may not ban or unban a ${user.role}`);
  return user;
}

function untilOf(raw: string | undefined, now: number): number | null {
  if (raw === undefined) return null;
  const at = Date.parse(raw);
  if (!(at > now)) badRequest("field 'until' must be a time in the future", [{ field: 'until', message: 'must be a time in the future' }]);
  return at;
}

const banJson = (r: BanRow) => ({ username: r.username, reason: r.reason, until: isoOrNull(r.until), bannedBy: userRef(r.by), createdAt: iso(r.created_at) });

/** PUT /api/admin/users/<name>/ban (moderators and admins): sets the ban, replacing one in force. */
export async function banUser(deps: Deps, by: Viewer, username: string, input: BanBody) {
  const now = deps.clock.now();
  const until = untilOf(input.until, now);
  const reason = input.reason.trim();
  if (reason === '') badRequest("field 'reason' must not be blank", [{ field: 'reason', message: 'must not be blank' }]);
  const row = await deps.db.transaction().execute(async (trx) => {
    const user = await bannable(trx, by, username);
    const values = { reason, until, banned_by: by.id, created_at: now };
    await upsertBan(trx, user.id, values);
    await recordAudit(trx, by, now, { action: 'user.ban', target: `user:${user.username_lower}`, details: { reason, until: isoOrNull(until) } });
    return banOfUser(trx, user.id);
  });
  return { ban: banJson(row) };
}

/** GET /api/admin/users/<name>/ban (moderators and admins): the ban in force, or 404. */
export async function getBan(deps: Deps, username: string) {
  const row = await banInForce(deps.db, username, deps.clock.now());
  return row ? { ban: banJson(row) } : notFound('Ban of user', username);
}

/** DELETE /api/admin/users/<name>/ban: lifts the ban (an expired one too); 404 when there is none. */
export async function unbanUser(deps: Deps, by: Viewer, username: string) {
  const now = deps.clock.now();
  return deps.db.transaction().execute(async (trx) => {
    const user = await bannable(trx, by, username);
    const gone = await deleteBan(trx, user.id);
    if (!gone) return notFound('Ban of user', username);
    await recordAudit(trx, by, now, {
      action: 'user.unban',
      target: `user:${user.username_lower}`,
      details: { reason: gone.reason, until: isoOrNull(gone.until), expired: gone.until !== null && gone.until <= now },
    });
    return { message: `${user.username} is no longer banned (the ban was ${banEnd(gone.until)})` };
  });
}
