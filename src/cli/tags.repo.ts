import type { Db } from '../db/engine.ts';

/** The account of that name (any case): id, name and role, or undefined (`tags --as`). */
export async function findAccountByName(db: Db, username: string) {
  return db.selectFrom('users').select(['id', 'username', 'role']).where('username_lower', '=', username.toLowerCase()).executeTakeFirst();
}
