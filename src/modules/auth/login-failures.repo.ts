import type { Database, Db, Tx } from '../../db/engine.ts';

/** Adds the name's row (no failures) unless it exists, so it can be locked. */
export async function ensureFailureRow(trx: Tx, usernameLower: string): Promise<void> {
  await trx
    .insertInto('login_failures')
    .values({ username_lower: usernameLower, failures: 0, last_failed_at: 0, blocked_until: 0 })
    .onConflict((oc) => oc.column('username_lower').doNothing())
    .execute();
}

/** The name's row, locked until the transaction ends (`db` is the Database the transaction is on). */
export async function lockFailureRow(db: Database, trx: Tx, usernameLower: string) {
  const select = trx.selectFrom('login_failures').selectAll().where('username_lower', '=', usernameLower);
  return db.lockRows(select).executeTakeFirstOrThrow();
}

/** Sets the name's failure count, time of last failure and end of wait. */
export async function setFailures(trx: Tx, usernameLower: string, failures: number, lastFailedAt: number, blockedUntil: number): Promise<void> {
  await trx
    .updateTable('login_failures')
    .set({ failures, last_failed_at: lastFailedAt, blocked_until: blockedUntil })
    .where('username_lower', '=', usernameLower)
    .execute();
}

/** Deletes the name's row. */
export async function deleteFailures(db: Db, usernameLower: string): Promise<void> {
  await db.deleteFrom('login_failures').where('username_lower', '=', usernameLower).execute();
}
