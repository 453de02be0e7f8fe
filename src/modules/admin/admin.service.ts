import type { Actor, Deps } from '../../core/deps.ts';
import { AppError, badRequest, notFound } from '../../core/errors.ts';
import type { Database, Tx } from '../../db/engine.ts';
import type { Role, Tier } from '../../core/tiers.ts';
import { enforceKeyCap } from '../api-keys/api-keys.service.ts';
import { recordAudit } from '../moderation/audit.repo.ts';
import { userJson } from '../users/accounts.ts';
import * as repo from './admin.repo.ts';

export interface AccountChange {
  tier?: Tier;
  role?: Role;
}

/**
 * A board keeps at least one admin: nobody could make another (the API's admin routes and
 * invites need one; only the command line could). On PostgreSQL the admins' rows are locked, so
 * two admins demoting each other at once cannot both pass; SQLite runs one writer at a time.
 */
async function refuseLastAdmin(db: Database, trx: Tx): Promise<void> {
  const rows = await repo.lockAdmins(db, trx);
  if (rows.length <= 1) throw new AppError(409, "This is the board's last admin: make another admin first");
}

/**
 * Sets a user's tier and/or role (admin API and CLI). A lower tier revokes the newest keys over
 * its cap. Each value that changes is an audit entry, in the same transaction.
 */
export async function changeAccount(deps: Deps, by: Actor, username: string, change: AccountChange) {
  if (change.tier === undefined && change.role === undefined) {
    badRequest('Give a tier or a role to change', [{ field: 'tier', message: 'tier or role is required' }]);
  }
  // One transaction: a key created meanwhile cannot slip past the new cap.
  const { updated, revokedKeys } = await deps.db.transaction().execute(async (trx) => {
    const tx = { ...deps, db: trx };
    const user = await repo.findUserByName(trx, username);
    if (!user) return notFound('User', username);
    if (user.role === 'admin' && change.role !== undefined && change.role !== 'admin') await refuseLastAdmin(deps.db, trx);
    const updated = await repo.setAccount(trx, user.id, { ...(change.tier ? { tier: change.tier } : {}), ...(change.role ? { role: change.role } : {}) });
    const revokedKeys = change.tier ? await enforceKeyCap(tx, user.id, change.tier) : 0;
    const target = `user:${user.username_lower}`;
    const now = deps.clock.now();
    if (change.role && change.role !== user.role) {
      await recordAudit(trx, by, now, { action: 'user.role', target, details: { before: user.role, after: change.role } });
    }
    if (change.tier && change.tier !== user.tier) {
      await recordAudit(trx, by, now, { action: 'user.tier', target, details: { before: user.tier, after: change.tier, revokedKeys } });
    }
    return { updated, revokedKeys };
  });
  return { user: userJson(updated), revokedKeys };
}
