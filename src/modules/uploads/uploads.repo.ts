import { sql } from 'kysely';
import type { Db } from '../../db/engine.ts';

/** The id of the post with these bytes (by sha256), or undefined. */
export async function findPostIdBySha256(db: Db, sha256: string) {
  return db.selectFrom('posts').select('id').where('sha256', '=', sha256).executeTakeFirst();
}

/** How many posts have no md5 yet. */
export async function countPostsWithoutMd5(db: Db): Promise<number> {
  const left = await db
    .selectFrom('posts')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('md5', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(left.n);
}

/** Up to `limit` posts without md5 after the id `after`, in id order, with their originals' paths. */
export async function postsWithoutMd5After(db: Db, after: number, limit: number) {
  // The (md5, id) index gives the posts still without md5 in id order, from where the last batch ended.
  return db.selectFrom('posts').select(['id', 'file_path']).where('md5', 'is', null).where('id', '>', after).orderBy('id').limit(limit).execute();
}

/** Writes a batch's sums in one statement, to posts still without md5; returns how many it wrote. */
export async function writeMd5(db: Db, sums: { id: number; md5: string }[]): Promise<number> {
  if (sums.length === 0) return 0;
  const cases = sql.join(
    sums.map((s) => sql`WHEN ${s.id} THEN ${s.md5}`),
    sql` `,
  );
  const result = await db
    .updateTable('posts')
    .set({ md5: sql<string>`CASE id ${cases} END` })
    .where(
      'id',
      'in',
      sums.map((s) => s.id),
    )
    .where('md5', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** The posts of `ids` that still exist, in id order. */
export async function existingPostIds(db: Db, ids: number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  return (await db.selectFrom('posts').select('id').where('id', 'in', ids).orderBy('id').execute()).map((r) => r.id);
}

/** Up to `limit` posts after the id `after`, in id order, with their media's paths, type and duration (media check). */
export async function postMediaAfter(db: Db, after: number, limit: number) {
  return db
    .selectFrom('posts')
    .select(['id', 'media_type', 'duration', 'file_path', 'thumb_path', 'preview_path'])
    .where('id', '>', after)
    .orderBy('id')
    .limit(limit)
    .execute();
}
