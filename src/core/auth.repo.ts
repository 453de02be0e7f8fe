import type { Db } from '../db/engine.ts';

/** The user an API key (by its hash) belongs to, with the key's id, state, limits and last use; undefined for an unknown key. */
export async function findUserByKey(db: Db, keyHash: string) {
  return db
    .selectFrom('api_keys')
    .innerJoin('users', 'users.id', 'api_keys.user_id')
    .select([
      'users.id',
      'users.username',
      'users.role',
      'users.tier',
      'users.last_seen_at',
      'api_keys.id as key_id',
      'api_keys.is_active',
      'api_keys.last_used',
      'api_keys.last_used_ip',
      'api_keys.scopes',
      'api_keys.expires_at',
      'api_keys.allowed_addresses',
    ])
    .where('api_keys.key_hash', '=', keyHash)
    .executeTakeFirst();
}

/** The user a session (by its token's hash) belongs to, with the session's id, if it has not expired at `now`. */
export async function findUserBySession(db: Db, tokenHash: string, now: number) {
  return db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .select(['users.id', 'users.username', 'users.role', 'users.tier', 'users.last_seen_at', 'sessions.id as session_id'])
    .where('sessions.token_hash', '=', tokenHash)
    .where('sessions.expires_at', '>', now)
    .executeTakeFirst();
}

/** Sets the user's last_seen_at. */
export async function touchUser(db: Db, userId: number, now: number): Promise<void> {
  await db.updateTable('users').set({ last_seen_at: now }).where('id', '=', userId).execute();
}

/** Sets the API key's last use and the address it came from. */
export async function touchKey(db: Db, keyId: number, now: number, ip: string): Promise<void> {
  await db.updateTable('api_keys').set({ last_used: now, last_used_ip: ip }).where('id', '=', keyId).execute();
}
