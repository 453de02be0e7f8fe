import type { Db } from '../../db/engine.ts';
import { randomToken, sha256Hex } from '../../core/tokens.ts';

export const SESSION_TTL_MS = 30 * 86_400_000;

/** Creates a session; returns the token for the cookie (only its hash is stored). */
export async function createSession(db: Db, userId: number, now: number): Promise<string> {
  const token = randomToken();
  await db
    .insertInto('sessions')
    .values({ user_id: userId, token_hash: sha256Hex(token), created_at: now, expires_at: now + SESSION_TTL_MS, last_seen_at: now })
    .execute();
  return token;
}

/** Ends that session. */
export async function deleteSession(db: Db, sessionId: number): Promise<void> {
  await db.deleteFrom('sessions').where('id', '=', sessionId).execute();
}

/** Ends every session of a user but the one given (null: all of them). */
export async function deleteOtherSessions(db: Db, userId: number, keep: number | null): Promise<void> {
  let q = db.deleteFrom('sessions').where('user_id', '=', userId);
  if (keep !== null) q = q.where('id', '!=', keep);
  await q.execute();
}
