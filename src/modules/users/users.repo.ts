import { type Insertable, sql } from 'kysely';
import type { Database, Db, Tx } from '../../db/engine.ts';
import type { UsersTable } from '../../db/types.ts';
import { preparedLookup } from '../../db/prepared.ts';

/**
 * A profile in one statement: the user's row by name and four counts through the indexes on
 * user_id (a lookup: profiles asked at once share it). Two statements cost a profile a fifth more.
 */
const profileByName = preparedLookup(
  (db, keyIs) => {
    const count = (table: 'posts' | 'comments' | 'favorites' | 'likes') =>
      db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where(sql.ref(table === 'posts' ? 'posts.uploader_id' : `${table}.user_id`), '=', sql.ref('users.id'));
    return db
      .selectFrom('users')
      .select(['users.username', 'users.username_lower', 'users.bio', 'users.avatar_path', 'users.created_at'])
      .select([count('posts').as('uploads'), count('comments').as('comments'), count('favorites').as('favorites'), count('likes').as('likes')])
      .where(keyIs(sql.ref('users.username_lower')));
  },
  (row) => row.username_lower,
);

/** The user of that name (any case) with the counts of what they did, or undefined. */
export async function findProfile(db: Db, username: string) {
  return (await profileByName(db, username.toLowerCase()))[0];
}

/** The id of the user of that lowercase name, or undefined (a plain statement: registering is rare). */
export async function findUserIdByLowerName(db: Db, usernameLower: string) {
  return db.selectFrom('users').select('id').where('username_lower', '=', usernameLower).executeTakeFirst();
}

/** A users row to insert. */
export type NewUser = Insertable<UsersTable>;

/** Adds a user; returns the new row. */
export async function insertUser(trx: Tx, user: NewUser) {
  return trx.insertInto('users').values(user).returningAll().executeTakeFirstOrThrow();
}

/** Sets the user's bio and/or avatar. */
export async function setProfile(db: Db, userId: number, change: { bio?: string; avatar_path?: string }): Promise<void> {
  await db.updateTable('users').set(change).where('id', '=', userId).execute();
}

/** The user's avatar path (null: none), or undefined when there is no such user. */
export async function findAvatarPath(db: Db, userId: number) {
  return db.selectFrom('users').select('avatar_path').where('id', '=', userId).executeTakeFirst();
}

/** The id and name of each of those users (an id with no user is left out). */
export async function findUserNames(db: Database, ids: number[]) {
  return db
    .selectFrom('users')
    .select(['id', 'username'])
    .where(db.oneOf(sql.ref('id'), db.listParam(ids)))
    .execute();
}

/** Whether any account is an admin (a new board has none until one is made). */
export async function hasAdmin(db: Db): Promise<boolean> {
  return (await db.selectFrom('users').select('id').where('role', '=', 'admin').limit(1).executeTakeFirst()) !== undefined;
}
