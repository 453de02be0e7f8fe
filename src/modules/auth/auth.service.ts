import type { Deps, Viewer } from '../../core/deps.ts';
import { AppError, badRequest, unauthorized } from '../../core/errors.ts';
import { createAccount, userJson } from '../users/accounts.ts';
import { decoyHash, hashPassword, verifyPassword } from './password.ts';
import { clearFailures, countAttempt } from './login-throttle.ts';
import * as sessions from './sessions.repo.ts';
import type { LoginBody, PasswordChangeBody, RegisterBody } from './auth.schemas.ts';

export async function register(deps: Deps, body: RegisterBody) {
  const user = await createAccount(deps, { username: body.username, password: body.password, email: body.email ?? null });
  const token = await sessions.createSession(deps.db, user.id, deps.clock.now());
  return { user: userJson(user), token };
}

/** The same answer for an unknown name and a wrong password. */
export async function login(deps: Deps, body: LoginBody) {
  const lower = body.username.toLowerCase();
  await countAttempt(deps, lower);
  const user = await deps.db.selectFrom('users').selectAll().where('username_lower', '=', lower).executeTakeFirst();
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
  const user = await deps.db.selectFrom('users').selectAll().where('id', '=', viewer.id).executeTakeFirstOrThrow();
  return { user: userJson(user) };
}

/** Changes the password and ends every other session of the user. */
export async function changePassword(deps: Deps, viewer: Viewer, sessionId: number | null, body: PasswordChangeBody) {
  const user = await deps.db.selectFrom('users').select('password_hash').where('id', '=', viewer.id).executeTakeFirstOrThrow();
  if (!(await verifyPassword(body.currentPassword, user.password_hash))) {
    badRequest('Current password is incorrect', [{ field: 'currentPassword', message: 'does not match' }]);
  }
  if (body.currentPassword === body.newPassword) {
    throw new AppError(400, 'The new password is the same as the current one', { details: [{ field: 'newPassword', message: 'unchanged' }] });
  }
  await deps.db
    .updateTable('users')
    .set({ password_hash: await hashPassword(body.newPassword) })
    .where('id', '=', viewer.id)
    .execute();
  await sessions.deleteOtherSessions(deps.db, viewer.id, sessionId);
  return { message: 'Password changed; other sessions were signed out' };
}
