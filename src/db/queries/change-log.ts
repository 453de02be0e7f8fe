import { sql, type Transaction } from 'kysely';
import type { DB } from '../types.ts';
import { CHANGED } from '../schema/tag-changes.ts';

/** The newest entry of the change log the transaction sees (0 when empty). */
export async function newestChange(trx: Transaction<DB>): Promise<number> {
  const [row] = await trx.selectFrom('tag_changes').select(sql<number | null>`max(seq)`.as('seq')).execute();
  return Number(row?.seq ?? 0);
}

/**
 * Says of posts whose tags a statement changed by only adding links that it added exactly those:
 * the entries the trigger logged for them after `since` (CHANGED.tags) give way to one entry a
 * link (CHANGED.tagAdded), which a reader applies as it is, without reading the posts again. The
 * caller holds the posts' rows, so no other writer logs them meanwhile, and (on PostgreSQL) the
 * commit-order lock its update took (db/locks.ts), so the new entries still number in commit order.
 */
export async function logTagsAdded(trx: Transaction<DB>, since: number, links: { post_id: number; tag_id: number }[]): Promise<void> {
  if (links.length === 0) return;
  const posts = [...new Set(links.map((l) => l.post_id))];
  await trx.deleteFrom('tag_changes').where('seq', '>', since).where('what', '=', CHANGED.tags).where('post_id', 'in', posts).execute();
  for (let at = 0; at < links.length; at += 500)
    await trx
      .insertInto('tag_changes')
      .values(links.slice(at, at + 500).map((l) => ({ post_id: l.post_id, tag_id: l.tag_id, what: CHANGED.tagAdded })))
      .execute();
}
