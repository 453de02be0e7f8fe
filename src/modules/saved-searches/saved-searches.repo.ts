import { sql, type Selectable } from 'kysely';
import type { Db, Tx } from '../../db/engine.ts';
import type { SavedSearchesTable } from '../../db/types.ts';

export type SavedSearchRow = Selectable<SavedSearchesTable>;

export function searchesOf(db: Db, userId: number): Promise<SavedSearchRow[]> {
  return db.selectFrom('saved_searches').selectAll().where('user_id', '=', userId).orderBy('id').execute();
}

export function searchOf(db: Db, userId: number, id: number): Promise<SavedSearchRow | undefined> {
  return db.selectFrom('saved_searches').selectAll().where('user_id', '=', userId).where('id', '=', id).executeTakeFirst();
}

export function insertSearch(db: Db, s: Omit<SavedSearchRow, 'id'>): Promise<SavedSearchRow> {
  return db.insertInto('saved_searches').values(s).returningAll().executeTakeFirstOrThrow();
}

export async function updateSearch(db: Db, id: number, change: { name?: string; q?: string; after_seq?: number }): Promise<void> {
  await db.updateTable('saved_searches').set(change).where('id', '=', id).execute();
}

export async function deleteSearch(db: Db, userId: number, id: number): Promise<void> {
  await db.deleteFrom('saved_searches').where('user_id', '=', userId).where('id', '=', id).execute();
}

/** Every saved search, with what its owner's filters are read from, by owner (the searches read first, as activeWebhooks says why). */
export function allSearches(db: Db) {
  return db
    .selectFrom('saved_searches')
    .crossJoin('users')
    .whereRef('users.id', '=', 'saved_searches.user_id')
    .select(['saved_searches.q', 'saved_searches.after_seq', 'users.id as user_id', 'users.username', 'users.role', 'users.tier'])
    .orderBy('saved_searches.user_id')
    .execute();
}

/** Adds posts to members' feeds (a post already in a feed stays where it is). */
export async function addToFeeds(trx: Tx, rows: { user_id: number; post_id: number; seq: number }[]): Promise<void> {
  for (let at = 0; at < rows.length; at += 300)
    await trx
      .insertInto('saved_search_posts')
      .values(rows.slice(at, at + 300))
      .onConflict((oc) => oc.columns(['user_id', 'post_id']).doNothing())
      .execute();
}

/** Where the member last looked (0: never). */
export async function seenUpTo(db: Db, userId: number): Promise<number> {
  const row = await db.selectFrom('saved_search_seen').select('seq').where('user_id', '=', userId).executeTakeFirst();
  return row ? Number(row.seq) : 0;
}

/**
 * A page of the member's feed, newest first, how many it holds and how many came since `seen`.
 * The counts ride on the page's own rows (one statement, one snapshot): read apart, a round
 * committing between them gave a page of two posts under a total of three.
 */
export async function feedPage(db: Db, userId: number, seen: number, limit: number, offset: number) {
  const unseenOf = sql<number>`sum(CASE WHEN seq > ${seen} THEN 1 ELSE 0 END)`;
  const rows = limit
    ? await db
        .selectFrom('saved_search_posts')
        .select(['post_id', sql<number>`count(*) over ()`.as('total'), sql<number>`${unseenOf} over ()`.as('unseen')])
        .where('user_id', '=', userId)
        .orderBy('seq', 'desc')
        .orderBy('post_id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute()
    : [];
  // No rows (a count alone, or a page past the end): the counts are read by themselves.
  const counts =
    rows[0] ??
    (await db
      .selectFrom('saved_search_posts')
      .select([sql<number>`count(*)`.as('total'), unseenOf.as('unseen')])
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow());
  return { ids: rows.map((r) => r.post_id), total: Number(counts.total), unseen: Number(counts.unseen ?? 0) };
}

/** The newest entry of the member's feed (0: none). */
export async function newestInFeed(db: Db, userId: number): Promise<number> {
  const row = await db.selectFrom('saved_search_posts').select(sql<number | null>`max(seq)`.as('seq')).where('user_id', '=', userId).executeTakeFirst();
  return Number(row?.seq ?? 0);
}

export async function markSeen(db: Db, userId: number, seq: number): Promise<void> {
  await db
    .insertInto('saved_search_seen')
    .values({ user_id: userId, seq })
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ seq }))
    .execute();
}
