import type { Deps } from '../../core/deps.ts';
import { AppError } from '../../core/errors.ts';

/**
 * Failed sign-ins per account name (existing or not, so the answer reveals nothing). The first
 * FREE_FAILURES within WINDOW_MS cost nothing; each further one doubles a wait, capped at
 * MAX_WAIT_MS. The wait always ends, so the real owner is never locked out for good, and a
 * success clears the record. Kept in the database, so every instance sees the same count.
 */
export const FREE_FAILURES = 5;
const WINDOW_MS = 15 * 60_000;
const MAX_WAIT_MS = 15 * 60_000;

export async function assertNotBlocked(deps: Deps, usernameLower: string): Promise<void> {
  const row = await deps.db.selectFrom('login_failures').select('blocked_until').where('username_lower', '=', usernameLower).executeTakeFirst();
  const wait = row ? row.blocked_until - deps.clock.now() : 0;
  if (wait > 0) {
    const seconds = Math.ceil(wait / 1000);
    throw new AppError(429, `Too many failed sign-ins for this account; try again in ${seconds} seconds`, { retryAfter: seconds });
  }
}

export async function recordFailure(deps: Deps, usernameLower: string): Promise<void> {
  const now = deps.clock.now();
  await deps.db.transaction().execute(async (trx) => {
    const row = await trx.selectFrom('login_failures').selectAll().where('username_lower', '=', usernameLower).executeTakeFirst();
    const failures = row && now - row.last_failed_at < WINDOW_MS ? row.failures + 1 : 1;
    const wait = failures < FREE_FAILURES ? 0 : Math.min(1000 * 2 ** (failures - FREE_FAILURES), MAX_WAIT_MS);
    const values = { failures, last_failed_at: now, blocked_until: now + wait };
    await trx
      .insertInto('login_failures')
      .values({ username_lower: usernameLower, ...values })
      .onConflict((oc) => oc.column('username_lower').doUpdateSet(values))
      .execute();
  });
}

export async function clearFailures(deps: Deps, usernameLower: string): Promise<void> {
  await deps.db.deleteFrom('login_failures').where('username_lower', '=', usernameLower).execute();
}
