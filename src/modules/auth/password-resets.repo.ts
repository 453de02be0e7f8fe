import type { Tx } from '../../db/engine.ts';

/** Deletes the user's reset links not used yet. */
export async function deleteUnusedResets(trx: Tx, userId: number): Promise<void> {
  await trx.deleteFrom('password_resets').where('user_id', '=', userId).where('used_at', 'is', null).execute();
}

/** Adds an unused reset link for the user, made at `now`. */
export async function insertReset(trx: Tx, userId: number, tokenHash: string, now: number, expiresAt: number): Promise<void> {
  await trx.insertInto('password_resets').values({ user_id: userId, token_hash: tokenHash, created_at: now, expires_at: expiresAt, used_at: null }).execute();
}

/** Marks the link of that token hash used if it is unused and unexpired at `now`; returns its user_id, or undefined when none was. */
export async function spendReset(trx: Tx, tokenHash: string, now: number) {
  return trx
    .updateTable('password_resets')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('user_id')
    .executeTakeFirst();
}

/** When the link of that token hash was used (null: not yet), or undefined when there is none. */
export async function findReset(trx: Tx, tokenHash: string) {
  return trx.selectFrom('password_resets').select('used_at').where('token_hash', '=', tokenHash).executeTakeFirst();
}
