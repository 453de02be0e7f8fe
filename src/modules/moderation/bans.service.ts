import type { Kysely } from 'kysely';
import { banEnd } from '../../core/bans.ts';
import type { Deps, Viewer } from '../../core/deps.ts';
import { badRequest, forbidden, notFound } from '../../core/errors.ts';
import { iso, isoOrNull } from '../../core/schemas.ts';
import type { DB } from '../../db/types.ts';
import { userRef } from '../../core/lists.ts';
import { recordAudit } from './audit.repo.ts';
import type { BanBody } from './moderation.schemas.ts';

const RANK = { user: 0, moderator: 1, admin: 2 } as const;

/** Who may ban whom: only someone of a lower role (a moderator bans users; an admin, users and moderators). */
async function bannable(trx: Kysely<DB>, by: Viewer, username: string) {
  const user = await trx
    .selectFrom('users')
    .select(['id', 'username', 'username_lower', 'role'])
    .where('username_lower', '=', username.toLowerCase())
    .executeTakeFirst();
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

const banQuery = (db: Kysely<DB>) =>
  db
    .selectFrom('user_bans')
    .innerJoin('users as u', 'u.id', 'user_bans.user_id')
    .leftJoin('users as b', 'b.id', 'user_bans.banned_by')
    .select(['u.username', 'user_bans.reason', 'user_bans.until', 'user_bans.created_at', 'b.username as by']);

type BanRow = Awaited<ReturnType<ReturnType<typeof banQuery>['executeTakeFirstOrThrow']>>;

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
    await trx
      .insertInto('user_bans')
      .values({ user_id: user.id, ...values })
      .onConflict((oc) => oc.column('user_id').doUpdateSet(values))
      .execute();
    await recordAudit(trx, by, now, { action: 'user.ban', target: `user:${user.username_lower}`, details: { reason, until: isoOrNull(until) } });
    return banQuery(trx).where('user_bans.user_id', '=', user.id).executeTakeFirstOrThrow();
  });
  return { ban: banJson(row) };
}

/** GET /api/admin/users/<name>/ban (moderators and admins): the ban in force, or 404. */
export async function getBan(deps: Deps, username: string) {
  const row = await banQuery(deps.db)
    .where('u.username_lower', '=', username.toLowerCase())
    .where((eb) => eb.or([eb('user_bans.until', 'is', null), eb('user_bans.until', '>', deps.clock.now())]))
    .executeTakeFirst();
  return row ? { ban: banJson(row) } : notFound('Ban of user', username);
}

/** DELETE /api/admin/users/<name>/ban: lifts the ban (an expired one too); 404 when there is none. */
export async function unbanUser(deps: Deps, by: Viewer, username: string) {
  const now = deps.clock.now();
  return deps.db.transaction().execute(async (trx) => {
    const user = await bannable(trx, by, username);
    const gone = await trx.deleteFrom('user_bans').where('user_id', '=', user.id).returning(['reason', 'until']).executeTakeFirst();
    if (!gone) return notFound('Ban of user', username);
    await recordAudit(trx, by, now, {
      action: 'user.unban',
      target: `user:${user.username_lower}`,
      details: { reason: gone.reason, until: isoOrNull(gone.until), expired: gone.until !== null && gone.until <= now },
    });
    return { message: `${user.username} is no longer banned (the ban was ${banEnd(gone.until)})` };
  });
}
