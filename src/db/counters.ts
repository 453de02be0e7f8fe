import type { Kysely, Transaction, UpdateQueryBuilder, UpdateResult } from 'kysely';
import type { DB } from './types.ts';
import { prepared } from './prepared.ts';

const counterRow = prepared((db, p: { name: string }) => db.selectFrom('counters').select('value').where('name', '=', p.name));

/**
 * A counter kept by triggers (migrations/001-initial-schema.ts): 'posts', 'posts:<rating>', or 'version', the data
 * version every upload, edit and delete moves (what in-memory structures check on use).
 */
export async function counter(db: Kysely<DB>, name: string): Promise<number> {
  const [row] = await counterRow(db, { name });
  return Number(row?.value ?? 0);
}

/** The stored counts a write moves by hand (the posts counters above move by trigger). */
interface Counted {
  posts: 'like_count' | 'favorite_count' | 'comment_count';
  comments: 'reply_count';
  tags: 'post_count';
  pools: 'post_count';
}

/**
 * Moves one stored count by `delta` in the writer's transaction, so it stays equal to the rows it
 * counts. Returns the statement, for a caller that needs `returning` (does the row still exist?).
 */
export function moveCount<T extends keyof Counted>(trx: Transaction<DB>, table: T, column: Counted[T], id: number, delta: number) {
  return (trx.updateTable(table) as unknown as UpdateQueryBuilder<DB, 'posts', 'posts', UpdateResult>)
    .set((eb) => ({ [column]: eb(column as 'like_count', '+', delta) }))
    .where('id', '=', id);
}

/**
 * Moves the post counts of tags or pools one row at a time, in ascending id order: every writer
 * then locks shared rows in the same order, so two edits or deletes touching the same tags cannot
 * deadlock on PostgreSQL (one UPDATE ... WHERE id IN (...) locks in no fixed order).
 */
export async function movePostCounts(trx: Transaction<DB>, table: 'tags' | 'pools', deltas: Map<number, number>): Promise<void> {
  for (const [id, delta] of [...deltas].sort((a, b) => a[0] - b[0])) {
    if (delta !== 0) await moveCount(trx, table, 'post_count', id, delta).execute();
  }
}

/**
 * Moves the data version by hand, for a write that changes what the posts' searches and lists read
 * without editing a post: a tag's category or name, an alias (what a name stands for).
 */
export async function bumpVersion(trx: Transaction<DB>): Promise<void> {
  await trx
    .updateTable('counters')
    .set((eb) => ({ value: eb('value', '+', 1) }))
    .where('name', '=', 'version')
    .execute();
}
