import type { Deps } from '../../core/deps.ts';
import { AppError, notFound } from '../../core/errors.ts';
import { iso } from '../../core/schemas.ts';
import { randomToken, sha256Hex } from '../../core/tokens.ts';
import { hashPassword } from '../users/password.ts';
import { clearFailures } from './login-throttle.ts';
import * as repo from './auth.repo.ts';
import * as resets from './password-resets.repo.ts';
import * as sessions from './sessions.repo.ts';
import type { ResetBody } from './auth.schemas.ts';

export const RESET_TTL_MS = 60 * 60_000;

/**
 * A one-time link that sets a new password for the user, valid for RESET_TTL_MS (the CLI's
 * `user reset-password`). Only the newest link of a user works: making one removes the others.
 */
export async function createResetLink(deps: Deps, username: string) {
  const user = await repo.findUserIdAndName(deps.db, username.toLowerCase());
  if (!user) return notFound('User', username);
  const token = randomToken();
  const now = deps.clock.now();
  await deps.db.transaction().execute(async (trx) => {
    await resets.deleteUnusedResets(trx, user.id);
    await resets.insertReset(trx, user.id, sha256Hex(token), now, now + RESET_TTL_MS);
  });
  const path = `/reset?token=${token}`;
  return { username: user.username, link: deps.config.publicUrl + path, relative: deps.config.publicUrl === '', expiresAt: iso(now + RESET_TTL_MS) };
}

/** Why a token did not work: the row it matched, if any, was used or has expired. */
function refusal(row: { used_at: number | null } | undefined): string {
  if (!row) return 'The reset token is not valid: copy the whole link, or ask an admin for a new one';
  if (row.used_at !== null) return 'The reset token has already been used: each link sets a password once';
  return 'The reset token has expired (a link works for one hour): ask an admin for a new one';
}

const badToken = (message: string): never => {
  throw new AppError(400, message, { details: [{ field: 'token', message }] });
};

/**
 * Sets the password a reset link is for and ends every session of the account, in one
 * transaction; the token is spent by the same conditional update, so a link works once even when
 * sent twice at once. API keys stay: they are revoked on their own page (as on Danbooru).
 */
export async function resetPassword(deps: Deps, body: ResetBody) {
  const passwordHash = await hashPassword(body.password);
  const now = deps.clock.now();
  const hash = sha256Hex(body.token);
  const username = await deps.db.transaction().execute(async (trx) => {
    const spent = await resets.spendReset(trx, hash, now);
    if (!spent) {
      return badToken(refusal(await resets.findReset(trx, hash)));
    }
    const user = await repo.resetPasswordHash(trx, spent.user_id, passwordHash);
    await sessions.deleteOtherSessions(trx, spent.user_id, null);
    return user.username_lower;
  });
  // The owner has just proved who they are: sign-in waits from earlier guesses no longer apply.
  await clearFailures(deps, username);
  return { message: 'Password set; every session of the account was signed out. Sign in with the new password' };
}
