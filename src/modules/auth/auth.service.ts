import type { Deps, Viewer } from '../../core/deps.ts';
import { AppError, badRequest, forbidden, unauthorized } from '../../core/errors.ts';
import { checkInvite, spendInvite } from '../invites/invites.service.ts';
import { createAccount, userJson } from '../users/accounts.ts';
import { decoyHash, hashPassword, verifyPassword } from '../users/password.ts';
import { clearFailures, countAttempt } from './login-throttle.ts';
import * as repo from './auth.repo.ts';
import * as sessions from './sessions.repo.ts';
import type { LoginBody, PasswordChangeBody, RegisterBody } from './auth.schemas.ts';

/** REGISTRATION=open takes anyone, `invite` only with an unspent code (spent with the account), `closed` no one. */
export async function register(deps: Deps, body: RegisterBody) {
  const mode = deps.config.registration;
  if (mode === 'closed') forbidden('Registration is closed on this board: ask an admin for an account');
  const code = mode === 'invite' ? body.invite : undefined;
  if (mode === 'invite') {
    if (code === undefined) {
      const message = 'Registration on this board is by invitation: an invite code is required';
      throw new AppError(403, message, { details: [{ field: 'invite', message: 'is required' }] });
    }
    // Before the password is hashed: a bad code is answered at once.
    await checkInvite(deps.db, code, deps.clock.now());
  }
  const account = { username: body.username, password: body.password, email: body.email ?? null };
  const user = await createAccount(deps, account, code === undefined ? undefined : (trx, u) => spendInvite(trx, code, u.id, deps.clock.now()));
  const token = await sessions.createSession(deps.db, user.id, deps.clock.now());
  return { user: userJson(user), token };
}

/** The same answer for an unknown name and a wrong password. */
export async function login(deps: Deps, body: LoginBody) {
  const lower = body.username.toLowerCase();
  await countAttempt(deps, lower);
  const user = await repo.findUserByName(deps.db, lower);
  const ok = await verifyPassword(body.password, user?.password_hash ?? (await decoyHash()));
  if (!user || !ok) return unauthorized('Invalid username or password');
  await clearFailures(deps, lower);
  const token = await sessions.createSession(deps.db, user.id, deps.clock.now());
  return { user: userJson(user), token };
}

export async function logout(deps: Deps, sessionId: number | null) {
  if (sessionId !== null) await sessions.deleteSession(deps.db, sessionId);
  return { message: 'Signed out' };
}

export async function me(deps: Deps, viewer: Viewer | null) {
  if (!viewer) return unauthorized('Not signed in');
  const user = await repo.getUser(deps.db, viewer.id);
  return { user: userJson(user) };
}

/** Who is signed in: `me`, with a visitor as an answer (null) rather than an error. */
export async function session(deps: Deps, viewer: Viewer | null) {
  return viewer ? me(deps, viewer) : { user: null };
}

/** Changes the password and ends every other session of the user. */
export async function changePassword(deps: Deps, viewer: Viewer, sessionId: number | null, body: PasswordChangeBody) {
  const user = await repo.getPasswordHash(deps.db, viewer.id);
  if (!(await verifyPassword(body.currentPassword, user.password_hash))) {
    badRequest('Current password is incorrect', [{ field: 'currentPassword', message: 'does not match' }]);
  }
  if (body.currentPassword === body.newPassword) {
    throw new AppError(400, 'The new password is the same as the current one', { details: [{ field: 'newPassword', message: 'unchanged' }] });
  }
  await repo.setPasswordHash(deps.db, viewer.id, await hashPassword(body.newPassword));
  await sessions.deleteOtherSessions(deps.db, viewer.id, sessionId);
  return { message: 'Password changed; other sessions were signed out' };
}

export const registration = (deps: Deps) => ({ mode: deps.config.registration });
