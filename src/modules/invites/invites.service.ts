import type { Deps, Viewer } from '../../core/deps.ts';
import { AppError, conflict, notFound } from '../../core/errors.ts';
import { parseId } from '../../core/ids.ts';
import { iso, isoOrNull } from '../../core/schemas.ts';
import { randomToken, sha256Hex } from '../../core/tokens.ts';
import type { Db } from '../../db/engine.ts';
import { INVITE_PREFIX, type InviteListQuery, type NewInviteBody } from './invites.schemas.ts';
import * as repo from './invites.repo.ts';

interface InviteRow {
  id: number;
  note: string;
  created_at: number;
  expires_at: number | null;
  used_at: number | null;
  creator: string | null;
  user: string | null;
}

function inviteJson(r: InviteRow, now: number) {
  const status = r.used_at !== null ? 'used' : r.expires_at !== null && r.expires_at <= now ? 'expired' : 'unused';
  return {
    id: String(r.id),
    note: r.note,
    status: status as 'unused' | 'used' | 'expired',
    createdBy: r.creator === null ? null : { username: r.creator },
    createdAt: iso(r.created_at),
    expiresAt: isoOrNull(r.expires_at),
    usedBy: r.user === null ? null : { username: r.user },
    usedAt: isoOrNull(r.used_at),
  };
}

/** A new one-time code; the answer is the only place the code itself appears. */
export async function createInvite(deps: Deps, viewer: Viewer, body: NewInviteBody) {
  const code = INVITE_PREFIX + randomToken();
  const now = deps.clock.now();
  const { id } = await repo.insertInvite(deps.db, {
    code_hash: sha256Hex(code),
    note: body.note?.trim() ?? '',
    created_by: viewer.id,
    created_at: now,
    expires_at: body.expiresIn === undefined ? null : now + body.expiresIn * 1000,
    used_by: null,
    used_at: null,
  });
  const row = await repo.getInviteWithNames(deps.db, id);
  return { invite: inviteJson(row, now), code };
}

export async function listInvites(deps: Deps, query: InviteListQuery) {
  const page = query.page ?? 1;
  const limit = query.limit ?? 50;
  const now = deps.clock.now();
  const [rows, count] = await Promise.all([repo.listInvitesWithNames(deps.db, limit, (page - 1) * limit), repo.countInvites(deps.db)]);
  const total = Number(count.n);
  return { invites: rows.map((r) => inviteJson(r, now)), total, page, totalPages: Math.ceil(total / limit) };
}

/**
 * Withdraws a code not used yet (given to the wrong person, say). A used one stays: it is the
 * record of who invited whom (409).
 */
export async function deleteInvite(deps: Deps, rawId: string) {
  const id = parseId(rawId, 'Invite');
  if ((await repo.deleteUnusedInvite(deps.db, id)) === 1) return { message: 'Invite withdrawn: its code no longer works' };
  const row = await repo.findInviteId(deps.db, id);
  if (!row) return notFound('Invite', rawId);
  return conflict('That invite has been used; it stays as the record of who invited whom');
}

const refused = (message: string): never => {
  throw new AppError(403, message, { details: [{ field: 'invite', message }] });
};

/** Why a code cannot be used now (403 naming the reason), or nothing when it can. */
export async function checkInvite(db: Db, code: string, now: number): Promise<void> {
  const row = await repo.findInviteByCode(db, sha256Hex(code));
  if (!row) refused('That invite code is not valid: check that it was copied whole, or ask for a new one');
  else if (row.used_at !== null) refused('That invite code has already been used: each code makes one account');
  else if (row.expires_at !== null && row.expires_at <= now) refused('That invite code has expired: ask an admin for a new one');
}

/**
 * Spends a code for a new account, inside the registering transaction. The update itself checks
 * that the code is unused and unexpired, so of two sign-ups racing on one code exactly one
 * changes the row (PostgreSQL re-checks the condition after the other's commit; SQLite runs them
 * one after the other); the loser's account is rolled back with the 403.
 */
export async function spendInvite(trx: Db, code: string, userId: number, now: number): Promise<void> {
  if ((await repo.spendInviteCode(trx, sha256Hex(code), userId, now)) === 1) return;
  await checkInvite(trx, code, now);
  refused('That invite code has already been used: each code makes one account');
}
