import type { Db, Tx } from '../../db/engine.ts';

/** The user of that lowercase name, every column, or undefined. */
export async function findUserByName(db: Db, usernameLower: string) {
  return db.selectFrom('users').selectAll().where('username_lower', '=', usernameLower).executeTakeFirst();
}

/** The user with that id, every column (throws when there is none). */
export async function getUser(db: Db, userId: number) {
  return db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirstOrThrow();
}

/** The user's password hash (throws when there is no such user). */
export async function getPasswordHash(db: Db, userId: number) {
  return db.selectFrom('users').select('password_hash').where('id', '=', userId).executeTakeFirstOrThrow();
}

/** Sets the user's password hash. */
export async function setPasswordHash(db: Db, userId: number, passwordHash: string): Promise<void> {
  await db.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', userId).execute();
}

/** The id and name of the user of that lowercase name, or undefined. */
export async function findUserIdAndName(db: Db, usernameLower: string) {
  return db.selectFrom('users').select(['id', 'username']).where('username_lower', '=', usernameLower).executeTakeFirst();
}

/** Sets the user's password hash; returns the user's lowercase name (throws when there is no such user). */
export async function resetPasswordHash(trx: Tx, userId: number, passwordHash: string) {
  return trx.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', userId).returning('username_lower').executeTakeFirstOrThrow();
}
