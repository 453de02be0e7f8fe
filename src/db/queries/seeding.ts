import { sql, type Kysely } from 'kysely';
import type { Database } from '../engine.ts';
import type { DB } from '../types.ts';

// What the seeder (src/seed/) does differently on each engine.

/**
 * How many posts go into one transaction. Per-row triggers on posts update one shared row (the
 * counters table) for every post; PostgreSQL keeps each version of that row until the transaction
 * ends and walks them all on the next update, so one transaction over 100,000 posts turns
 * quadratic (minutes): a few thousand a transaction keeps that negligible. SQLite updates in
 * place, and each commit there costs a WAL checkpoint with fsync, so it takes them all at once.
 */
export const postsPerTransaction = (db: Database): number => (db.engine === 'postgres' ? 2_000 : Number.POSITIVE_INFINITY);

/**
 * After rows were inserted with explicit ids, makes the next generated id follow them (`trx`: the
 * transaction to do it in). SQLite's AUTOINCREMENT follows them by itself; PostgreSQL identity
 * sequences do not, so the next id the app takes would collide.
 */
export async function followInsertedIds(db: Database, trx: Kysely<DB>, tables: readonly (keyof DB & string)[]): Promise<void> {
  if (db.engine !== 'postgres') return;
  for (const table of tables) {
    await sql`select setval(pg_get_serial_sequence(${table}, 'id'), max(id)) from ${sql.table(table)} having count(*) > 0`.execute(trx);
  }
}

/**
 * Empties the events table (migrations/020-events.ts) the seeder's inserts filled through its
 * triggers: a seeded board has had nobody watching, and a stream opened later starts from its
 * newest event anyway. Without a condition both engines empty the table without reading it.
 */
export async function forgetSeededEvents(db: Kysely<DB>): Promise<void> {
  await db.deleteFrom('events').execute();
}
