import { type Insertable, sql } from 'kysely';
import type { Database, Db, Tx } from '../../db/engine.ts';
import type { ApiKeysTable } from '../../db/types.ts';

/** An api_keys row to insert. */
export type NewKey = Insertable<ApiKeysTable>;

/** The user's tier, the user's row locked until the transaction ends (`db` is the Database the transaction is on). */
export async function lockUserTier(db: Database, trx: Tx, userId: number) {
  const user = trx.selectFrom('users').select('tier').where('id', '=', userId);
  return db.lockRows(user).executeTakeFirstOrThrow();
}

/** How many active keys the user has that have not expired at `now` (`n`): what the tier caps. */
export async function countActiveKeys(trx: Tx, userId: number, now: number) {
  return trx
    .selectFrom('api_keys')
    .select(sql<number>`count(*)`.as('n'))
    .where('user_id', '=', userId)
    .where('is_active', '=', 1)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .executeTakeFirstOrThrow();
}

/** Adds a key; returns the new row. */
export async function insertKey(trx: Tx, key: NewKey) {
  return trx.insertInto('api_keys').values(key).returningAll().executeTakeFirstOrThrow();
}

/** The user's keys, newest first. */
export async function listKeysOf(db: Db, userId: number) {
  return db.selectFrom('api_keys').selectAll().where('user_id', '=', userId).orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
}

/** The id and state of that key if it is the user's, or undefined. */
export async function findKeyOf(db: Db, keyId: number, userId: number) {
  return db.selectFrom('api_keys').select(['id', 'is_active']).where('id', '=', keyId).where('user_id', '=', userId).executeTakeFirst();
}

/** Marks the key revoked at `now`. */
export async function revokeKey(db: Db, keyId: number, now: number): Promise<void> {
  await db.updateTable('api_keys').set({ is_active: 0, revoked_at: now }).where('id', '=', keyId).execute();
}

/** The ids of the user's active keys that have not expired at `now`, oldest first. */
export async function activeKeyIds(db: Db, userId: number, now: number) {
  return db
    .selectFrom('api_keys')
    .select('id')
    .where('user_id', '=', userId)
    .where('is_active', '=', 1)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc')
    .execute();
}

/** Marks those keys revoked at `now`. */
export async function revokeKeys(db: Db, keyIds: number[], now: number): Promise<void> {
  await db.updateTable('api_keys').set({ is_active: 0, revoked_at: now }).where('id', 'in', keyIds).execute();
}
