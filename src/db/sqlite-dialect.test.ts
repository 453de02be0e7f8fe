import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { freshDatabase } from '../../test/helpers.ts';
import { unavailableOf } from '../storage/unavailable.ts';

// A database that cannot grow, as on a full disk: PRAGMA max_page_count makes SQLite answer
// SQLITE_FULL, and roll the transaction back itself, as it does when the disk is full.
test('a transaction that meets a full database fails with SQLITE_FULL (a 507), not with its ROLLBACK, and the next one works once there is room', async () => {
  const { database: db, cleanup } = await freshDatabase('sqlite');
  try {
    await sql`CREATE TABLE filler (b BLOB)`.execute(db);
    const pages = (await sql<{ page_count: number }>`PRAGMA page_count`.execute(db)).rows[0].page_count;
    await sql.raw(`PRAGMA max_page_count = ${pages}`).execute(db);
    const write = () => db.transaction().execute((trx) => sql`INSERT INTO filler VALUES (zeroblob(100000))`.execute(trx));
    const err = await write().then(
      () => null,
      (e: unknown) => e,
    );
    assert.equal((err as { code?: string } | null)?.code, 'SQLITE_FULL', String(err));
    assert.deepEqual({ status: unavailableOf(err)?.status, dependency: unavailableOf(err)?.dependency }, { status: 507, dependency: 'disk' });

    await sql`PRAGMA max_page_count = 1073741823`.execute(db);
    await write();
    assert.equal((await sql<{ n: number }>`SELECT count(*) AS n FROM filler`.execute(db)).rows[0].n, 1);
  } finally {
    await cleanup();
  }
});
