import { type Kysely, sql } from 'kysely';
import type { DB } from '../../db/types.ts';
import { preparedLookup } from '../../db/prepared.ts';

// Prepared once: a search by user: or fav: looks its name up on every request.
const userIdByName = preparedLookup(
  (db, keyIs) =>
    db
      .selectFrom('users')
      .select(['id', 'username_lower'])
      .where(keyIs(sql.ref('username_lower'))),
  (row) => row.username_lower,
);

export async function findUserIdByName(db: Kysely<DB>, username: string): Promise<number | undefined> {
  return (await userIdByName(db, username.toLowerCase()))[0]?.id;
}

const userByName = preparedLookup(
  (db, keyIs) =>
    db
      .selectFrom('users')
      .selectAll()
      .where(keyIs(sql.ref('username_lower'))),
  (row) => row.username_lower,
);

export async function findUserByName(db: Kysely<DB>, username: string) {
  return (await userByName(db, username.toLowerCase()))[0];
}

/** One statement: four counts through the indexes on user_id (a lookup: profiles asked at once share it). */
const statsOf = preparedLookup(
  (db, keyIs) => {
    const count = (table: 'posts' | 'comments' | 'favorites' | 'likes') =>
      db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where(sql.ref(table === 'posts' ? 'posts.uploader_id' : `${table}.user_id`), '=', sql.ref('users.id'));
    return db
      .selectFrom('users')
      .select(['users.id', count('posts').as('uploads'), count('comments').as('comments'), count('favorites').as('favorites'), count('likes').as('likes')])
      .where(keyIs(sql.ref('users.id')));
  },
  (row) => row.id,
);

/** What a profile shows: everything the user did. */
export async function userStats(db: Kysely<DB>, userId: number) {
  const [row] = await statsOf(db, userId);
  if (!row) return { uploads: 0, comments: 0, favorites: 0, likes: 0 };
  return { uploads: Number(row.uploads), comments: Number(row.comments), favorites: Number(row.favorites), likes: Number(row.likes) };
}
