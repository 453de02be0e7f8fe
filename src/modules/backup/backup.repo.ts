import { sql } from 'kysely';
import type { Db } from '../../db/engine.ts';

/** Up to `limit` posts after id `after`, by id: their ids and media paths. */
export async function postMediaAfter(db: Db, after: number, limit: number) {
  return db.selectFrom('posts').select(['id', 'file_path', 'thumb_path', 'preview_path']).where('id', '>', after).orderBy('id').limit(limit).execute();
}

/** The avatar paths of the users who have one. */
export async function listAvatarPaths(db: Db) {
  return db.selectFrom('users').select('avatar_path').where('avatar_path', 'is not', null).execute();
}

/** Every held upload's post (JSON text). */
export async function listPendingPosts(db: Db) {
  return db.selectFrom('pending_posts').select('post').execute();
}

/** The rows of SQLite's `PRAGMA quick_check` on the database. */
export async function quickCheck(db: Db): Promise<Record<string, string>[]> {
  return (await sql<Record<string, string>>`PRAGMA quick_check`.execute(db)).rows;
}
