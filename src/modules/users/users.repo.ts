import type { Kysely } from 'kysely';
import type { DB } from '../../db/types.ts';

export async function findUserIdByName(db: Kysely<DB>, username: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('users')
    .select('id')
    .where('username_lower', '=', username.toLowerCase())
    .executeTakeFirst();
  return row?.id;
}

export async function findUserByName(db: Kysely<DB>, username: string) {
  return db.selectFrom('users').selectAll().where('username_lower', '=', username.toLowerCase()).executeTakeFirst();
}

/** What a profile shows: everything the user did, counted through indexes on user_id. */
export async function userStats(db: Kysely<DB>, userId: number) {
  const count = (table: 'comments' | 'favorites' | 'likes') =>
    db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).where('user_id', '=', userId).executeTakeFirstOrThrow();
  const [uploads, comments, favorites, likes] = await Promise.all([
    db.selectFrom('posts').select((eb) => eb.fn.countAll<number>().as('n')).where('uploader_id', '=', userId).executeTakeFirstOrThrow(),
    count('comments'),
    count('favorites'),
    count('likes'),
  ]);
  return {
    uploads: Number(uploads.n),
    comments: Number(comments.n),
    favorites: Number(favorites.n),
    likes: Number(likes.n),
  };
}
