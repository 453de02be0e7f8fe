import { sql, type Transaction } from 'kysely';
import type { DB } from './types.ts';

/** The advisory lock's key that puts implication writes and the writes applying them in order. */
const IMPLICATIONS = 7_304_211;

/**
 * Locks held to the end of the transaction (PostgreSQL advisory locks). On SQLite the same
 * functions exist and do nothing (database.ts): a write transaction holds the whole database.
 *
 * A write that gives posts tags reads the implications first and makes its post after; an
 * implication made between the two would miss that post (its backfill looks for posts before the
 * write commits, and the write did not see it). So every transaction that applies implications
 * takes the lock shared, and one that makes an implication takes it exclusively: each sees the
 * other's work. Each takes it before any other lock (its first statement, or when it already holds
 * it), so no deadlock can go through it.
 */
export const LOCK_FUNCTIONS = ['pg_advisory_xact_lock', 'pg_advisory_xact_lock_shared'] as const;

/** A write that applies implications (tagsForWrite, retags, edits): shared with the others. */
export async function applyingImplications(trx: Transaction<DB>): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock_shared(CAST(${IMPLICATIONS} AS bigint))`.execute(trx);
}

/** Making an implication: alone, once the writes that read the implications before it have committed. */
export async function changingImplications(trx: Transaction<DB>): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(CAST(${IMPLICATIONS} AS bigint))`.execute(trx);
}

/** The advisory lock's key that puts writes giving posts a parent in order. */
const PARENTS = 7_304_212;

/**
 * Giving a post a parent: one at a time, so two edits cannot each find no cycle and together make
 * one (A's parent B, B's parent A). Taken after the implications lock and before any row lock.
 */
export async function changingParents(trx: Transaction<DB>): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(CAST(${PARENTS} AS bigint))`.execute(trx);
}

/** SQL function (migration 017; a no-op on SQLite, database.ts) taking the commit-order lock. */
export const COMMIT_ORDER_FUNCTION = 'commit_order_lock';

/**
 * The commit-order lock (PostgreSQL, migration 017): held to the transaction's end by every write
 * that hands out a number readers follow (a new post's id, a change log entry's seq) or moves the
 * data version, taken before it draws one. Such writers commit in the order they drew, so a
 * reader that has seen N never meets a smaller one committing later. Triggers take it for post
 * inserts, edits and deletes; this is for a write moving the version by hand (bumpVersion).
 * Every writer takes its locks in one order: the posts' rows, then this lock, then the tags' rows
 * (an edit's trigger takes it at its post's first update, before the tag counts move; an
 * upload's one statement inserts its post before it locks its tags, queries/post-insert.ts;
 * bumpVersion comes last).
 */
export async function writingInCommitOrder(trx: Transaction<DB>): Promise<void> {
  await sql`SELECT ${sql.raw(COMMIT_ORDER_FUNCTION)}()`.execute(trx);
}
