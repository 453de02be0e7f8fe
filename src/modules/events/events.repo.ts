import { sql } from 'kysely';
import type { Db, Tx } from '../../db/engine.ts';
import type { EventKind } from '../../db/schema/events.ts';

/** An entry of the events table (migrations/020-events.ts). */
export interface StoredEvent {
  seq: number;
  kind: EventKind;
  postId: number;
  refId: number | null;
}

/** The events after `seq`, oldest first, at most `limit`. */
export async function eventsAfter(db: Db, seq: number, limit: number, postId?: number): Promise<StoredEvent[]> {
  let q = db.selectFrom('events').select(['seq', 'kind', 'post_id', 'ref_id']).where('seq', '>', seq);
  if (postId !== undefined) q = q.where('post_id', '=', postId);
  const rows = await q.orderBy('seq').limit(limit).execute();
  return rows.map((r) => ({ seq: Number(r.seq), kind: r.kind as EventKind, postId: r.post_id, refId: r.ref_id }));
}

/** The newest event's seq (0: none yet). */
export async function newestEvent(db: Db): Promise<number> {
  const row = await db.selectFrom('events').select(sql<number | null>`max(seq)`.as('seq')).executeTakeFirst();
  return Number(row?.seq ?? 0);
}

/**
 * Drops the events older than `before` (epoch ms). Rows are in `at` order by seq (one writer at a
 * time draws both), so the first kept one is found walking the key from the oldest, through only
 * the rows about to go: `at` needs no index of its own.
 */
export async function dropEventsBefore(db: Db, before: number): Promise<number> {
  const first = await db.selectFrom('events').select('seq').where('at', '>=', before).orderBy('seq').limit(1).executeTakeFirst();
  let q = db.deleteFrom('events');
  if (first) q = q.where('seq', '<', first.seq);
  else q = q.where('at', '<', before);
  const result = await q.executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** A post's like count, for a like's event (null: the post is gone). */
export async function likeCount(db: Db, postId: number): Promise<number | null> {
  const row = await db.selectFrom('posts').select('like_count').where('id', '=', postId).executeTakeFirst();
  return row ? row.like_count : null;
}

/** The counters that say how far a follower of the events (webhooks, saved searches) has read. */
export type EventCounter = 'webhooks' | 'saved_searches';

/** The last event `name` has followed. */
export async function followedUpTo(db: Db, name: EventCounter): Promise<number> {
  const row = await db.selectFrom('counters').select('value').where('name', '=', name).executeTakeFirstOrThrow();
  return Number(row.value);
}

/**
 * Moves the counter `name` from `from` to `to` in the caller's transaction; false when another
 * instance moved it first (then the caller writes nothing of its round).
 */
export async function moveFollowed(trx: Tx, name: EventCounter, from: number, to: number): Promise<boolean> {
  const moved = await trx.updateTable('counters').set({ value: to }).where('name', '=', name).where('value', '=', from).executeTakeFirst();
  return Number(moved.numUpdatedRows) > 0;
}
