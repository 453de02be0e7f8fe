/** A user's id by name: read by searches (`user:`, `fav:`), the tag list's author filter and a member's favorites. */
import { sql } from 'kysely';
import type { Db } from '../engine.ts';
import { preparedLookup } from '../prepared.ts';

// Prepared once: a search by user: or fav: looks its name up on every request.
const userIdByName = preparedLookup(
  (db, keyIs) =>
    db
      .selectFrom('users')
      .select(['id', 'username_lower'])
      .where(keyIs(sql.ref('username_lower'))),
  (row) => row.username_lower,
);

/** The id of the user of that name (any case), or undefined. */
export async function findUserIdByName(db: Db, username: string): Promise<number | undefined> {
  return (await userIdByName(db, username.toLowerCase()))[0]?.id;
}
