import type { Deps } from '../../core/deps.ts';
import { AppError } from '../../core/errors.ts';
import * as repo from './login-failures.repo.ts';

/**
 * Failed sign-ins per account name (existing or not, so the answer reveals nothing). The first
 * FREE_FAILURES within WINDOW_MS cost nothing; each further one doubles a wait, capped at
 * MAX_WAIT_MS. The wait always ends, so the real owner is never locked out for good, and a
 * success clears the record. Kept in the database, so every instance sees the same count.
 */
export const FREE_FAILURES = 5;
const WINDOW_MS = 15 * 60_000;
const MAX_WAIT_MS = 15 * 60_000;

/**
 * Refuses (429) while the name is slowed down; otherwise counts this attempt as a failure before
 * the password is checked (a success clears it). Check and count happen in one transaction with
 * the row locked, so guesses sent all at once cannot all pass the check before any is counted.
 */
export async function countAttempt(deps: Deps, usernameLower: string): Promise<void> {
  const now = deps.clock.now();
  await deps.db.transaction().execute(async (trx) => {
    // Make sure the row exists so it can be locked (PostgreSQL); in SQLite this takes the write lock.
    await repo.ensureFailureRow(trx, usernameLower);
    const row = await repo.lockFailureRow(deps.db, trx, usernameLower);
    const wait = row.blocked_until - now;
    if (wait > 0) {
      const seconds = Math.ceil(wait / 1000);
      throw new AppError(429, `Too many failed sign-ins for this account; try again in ${seconds} seconds`, { retryAfter: seconds });
    }
    const failures = now - row.last_failed_at < WINDOW_MS ? row.failures + 1 : 1;
    const block = failures < FREE_FAILURES ? 0 : Math.min(1000 * 2 ** (failures - FREE_FAILURES), MAX_WAIT_MS);
    await repo.setFailures(trx, usernameLower, failures, now, now + block);
  });
}

export async function clearFailures(deps: Deps, usernameLower: string): Promise<void> {
  await repo.deleteFailures(deps.db, usernameLower);
}
