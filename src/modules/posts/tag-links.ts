import type { Transaction } from 'kysely';
import type { DB } from '../../db/types.ts';

/** Where a walk over a tag's posts stopped: post_tags' (tag_id, created_at, post_id) index order. */
export interface LinkCursor {
  at: number;
  post: number;
}

/**
 * The next `limit` links of a tag after `cursor`, in its index's order: only that tag's links are
 * read, and a step of a job costs the same at its end as at its start.
 */
export async function tagLinksAfter(trx: Transaction<DB>, tagId: number, cursor: LinkCursor | null, limit: number) {
  const links = await trx
    .selectFrom('post_tags')
    .select(['post_id', 'created_at'])
    .where('tag_id', '=', tagId)
    .$if(cursor !== null, (qb) => qb.where((eb) => eb(eb.refTuple('created_at', 'post_id'), '>', eb.tuple(cursor!.at, cursor!.post))))
    .orderBy('created_at')
    .orderBy('post_id')
    .limit(limit)
    .execute();
  const last = links.at(-1);
  return { posts: links.map((l) => l.post_id), next: last ? { at: Number(last.created_at), post: last.post_id } : cursor };
}
