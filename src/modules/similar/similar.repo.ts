import { sql, type SqlBool } from 'kysely';
import { CHANGED } from '../../db/schema/tag-changes.ts';
import type { Db } from '../../db/engine.ts';

/** The 'published' counter and the change log's last position, read together (either null when absent). */
export async function publishedState(db: Db) {
  return (
    await sql<{ published: number | null; seq: number | null }>`SELECT (SELECT value FROM counters WHERE name = 'published') AS published,
      (SELECT max(seq) FROM tag_changes) AS seq`.execute(db)
  ).rows[0];
}

/** The highest post id (0 when there is no post). */
export async function maxPostId(db: Db): Promise<number> {
  return Number(
    (
      await db
        .selectFrom('posts')
        .select((eb) => eb.fn.max('id').as('m'))
        .executeTakeFirst()
    )?.m ?? 0,
  );
}

/** Up to `limit` posts after the id `after`, in id order, with their perceptual hashes. */
export async function phashesAfter(db: Db, after: number, limit: number) {
  return db.selectFrom('posts').select(['id', 'phash']).where('id', '>', after).orderBy('id').limit(limit).execute();
}

/** The posts the change log records as published from the approval queue at positions (afterSeq, upTo], with their hashes. */
export async function publishedPhashes(db: Db, afterSeq: number, upTo: number) {
  return db
    .selectFrom('tag_changes')
    .innerJoin('posts', 'posts.id', 'tag_changes.post_id')
    .select(['posts.id', 'posts.phash'])
    .where('tag_changes.seq', '>', afterSeq)
    .where('tag_changes.seq', '<=', upTo)
    .where(sql<SqlBool>`(tag_changes.what & ${CHANGED.published}) <> 0`)
    .execute();
}

/** A post's perceptual hash (null when it has none), or undefined when there is no such post. */
export async function findPostPhash(db: Db, id: number) {
  return db.selectFrom('posts').select('phash').where('id', '=', id).executeTakeFirst();
}
