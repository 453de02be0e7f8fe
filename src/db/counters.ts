import { PostgresAdapter, sql, type Kysely, type Transaction, type UpdateQueryBuilder, type UpdateResult } from 'kysely';
import { writingInCommitOrder } from './locks.ts';
import type { DB } from './types.ts';
import { prepared, preparedLookup } from './prepared.ts';
import { Database } from './engine.ts';

const counterRow = preparedLookup(
  (db, keyIs) =>
    db
      .selectFrom('counters')
      .select(['name', 'value'])
      .where(keyIs(sql.ref('name'))),
  (row) => row.name,
);

/**
 * A counter kept by triggers (migrations/001-initial-schema.ts): 'posts', 'posts:<rating>', or 'version', the data
 * version every upload, edit and delete moves (what in-memory structures check on use). On
 * PostgreSQL every write moving them holds the commit-order lock first (locks.ts), so they are
 * one row each: no two writers wait for a row there rather than for the lock.
 */
/** The posts as counted row by row now (a backup's snapshot, a check's progress), not the stored counter. */
export async function countPostRows(db: Kysely<DB>): Promise<number> {
  const row = await db
    .selectFrom('posts')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function counter(db: Kysely<DB>, name: string): Promise<number> {
  return sinceCommit(db, name, async () => {
    const [row] = await counterRow(db, name);
    return Number(row?.value ?? 0);
  });
}

/** Counters as last read, by database, with the commit mark taken before the read. */
const readAt = new WeakMap<Kysely<DB>, Map<string, { mark: Buffer; value: unknown }>>();

/**
 * `read()`'s value, or the one it gave before when nothing has been committed since (the
 * database's commit mark is unchanged): counters are read on most requests (the data version),
 * and they move only with commits. Without a mark (PostgreSQL, a transaction), read afresh.
 */
async function sinceCommit<T>(db: Kysely<DB>, key: string, read: () => Promise<T>): Promise<T> {
  const mark = db instanceof Database ? db.commitMark() : null;
  if (!mark) return read();
  let kept = readAt.get(db);
  if (!kept) readAt.set(db, (kept = new Map()));
  const last = kept.get(key);
  if (last?.mark.equals(mark)) return last.value as T;
  const value = await read();
  kept.set(key, { mark, value });
  return value;
}

/** sinceCommit's key for the two read together (no counter has this name). */
const BOTH_VERSIONS = 'version+counts';

const bothVersions = prepared(
  () => sql<{ version: unknown; counts: unknown }>`SELECT (SELECT value FROM counters WHERE name = 'version') AS version,
    (SELECT value FROM counters WHERE name = 'counts') AS counts`,
);

/**
 * The data version and the count log's position ('counts'), together: one statement, or on
 * PostgreSQL two reads that join other requests' (counter).
 */
export async function versions(db: Database): Promise<{ version: number; counts: number }> {
  if (db.coalesces) {
    const [version, counts] = await Promise.all([counter(db, 'version'), counter(db, 'counts')]);
    return { version, counts };
  }
  return sinceCommit(db, BOTH_VERSIONS, async () => {
    const [row] = await bothVersions(db, {});
    return { version: Number(row?.version ?? 0), counts: Number(row?.counts ?? 0) };
  });
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
 * Moves the post counts of tags or pools in one statement. On PostgreSQL it locks their rows
 * first in ascending id order (a sub-select FOR UPDATE, which sorts before it locks): every writer
 * then locks shared rows in the same order, so two writes touching the same tags cannot deadlock
 * (an UPDATE ... WHERE id IN (...) alone locks in no fixed order). One statement instead of one a
 * row: a popular tag's row is held to the commit, so an upload's round trips after it are every
 * other upload's wait.
 */
export async function movePostCounts(trx: Transaction<DB>, table: 'tags' | 'pools', deltas: Map<number, number>): Promise<void> {
  const moves = [...deltas].filter(([, delta]) => delta !== 0).sort((a, b) => a[0] - b[0]);
  if (moves.length === 0) return;
  const ids = moves.map(([id]) => id);
  const rows = trx
    .selectFrom(table as 'tags')
    .select('id')
    .where('id', 'in', ids)
    .orderBy('id');
  const by = sql.join(
    moves.map(([id, delta]) => sql`WHEN ${id} THEN CAST(${delta} AS integer)`),
    sql` `,
  );
  await trx
    .updateTable(table as 'tags')
    .set({ post_count: sql<number>`post_count + CASE id ${by} END` })
    .where('id', 'in', onPostgres(trx) ? rows.forUpdate() : rows)
    .execute();
}

/** Whether `db` runs on PostgreSQL (src/db/ is where the code may ask). */
const onPostgres = (db: Kysely<DB>): boolean => db.getExecutor().adapter instanceof PostgresAdapter;

/**
 * Moves the data version by hand, for a write that changes what the posts' searches and lists read
 * without editing a post: a tag's category or name, an alias (what a name stands for). It takes
 * the commit-order lock first, as every write moving the version does (locks.ts), so call it after
 * the transaction's row locks (its posts', its tags'): late, as the triggers take it.
 */
export async function bumpVersion(trx: Transaction<DB>): Promise<void> {
  await writingInCommitOrder(trx);
  await trx
    .updateTable('counters')
    .set((eb) => ({ value: eb('value', '+', 1) }))
    .where('name', '=', 'version')
    .execute();
}
