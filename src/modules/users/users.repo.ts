import type { Kysely } from 'kysely';
import type { DB } from '../../db/types.ts';
import { prepared } from '../../db/prepared.ts';

// Prepared once: a search by user: or fav: looks its name up on every request.
const userIdByName = prepared((db, p: { lower: string }) => db.selectFrom('users').select('id').where('username_lower', '=', p.lower));

export async function findUserIdByName(db: Kysely<DB>, username: string): Promise<number | undefined> {
  return (await userIdByName(db, { lower: username.toLowerCase() }))[0]?.id;
}

const userByName = prepared((db, p: { lower: string }) => db.selectFrom('users').selectAll().where('username_lower', '=', p.lower));

export async function findUserByName(db: Kysely<DB>, username: string) {
  return (await userByName(db, { lower: username.toLowerCase() }))[0];
}

/** One statement: four counts through the indexes on user_id. */
const statsOf = prepared((db, p: { id: number }) => {
  const count = (table: 'posts' | 'comments' | 'favorites' | 'likes') =>
    db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where(table === 'posts' ? 'uploader_id' : 'user_id', '=', p.id);
  return db.selectNoFrom([count('posts').as('uploads'), count('comments').as('comments'), count('favorites').as('favorites'), count('likes').as('likes')]);
});

/** What a profile shows: everything the user did. */
export async function userStats(db: Kysely<DB>, userId: number) {
  const [row] = await statsOf(db, { id: userId });
  return { uploads: Number(row.uploads), comments: Number(row.comments), favorites: Number(row.favorites), likes: Number(row.likes) };
}
