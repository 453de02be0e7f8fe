import type { Database, Tx } from '../../db/engine.ts';

/** The ids of the admins, their rows locked until the transaction ends (`db` is the Database the transaction is on). */
export async function lockAdmins(db: Database, trx: Tx) {
  return db.lockRows(trx.selectFrom('users').select('id').where('role', '=', 'admin')).execute();
}

/** The user of that name (any case), every column, or undefined. */
export async function findUserByName(trx: Tx, username: string) {
  return trx.selectFrom('users').selectAll().where('username_lower', '=', username.toLowerCase()).executeTakeFirst();
}

/** Sets the user's tier and/or role; returns the updated row. */
export async function setAccount(trx: Tx, userId: number, change: { tier?: string; role?: string }) {
  return trx.updateTable('users').set(change).where('id', '=', userId).returningAll().executeTakeFirstOrThrow();
}
