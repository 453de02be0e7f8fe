import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { freshDatabase } from '../../test/helpers.ts';
import { createPost, createUser } from '../../test/factories.ts';
import { dropHistograms } from './statistics.ts';

test('SQLite keeps the row counts of ANALYZE and drops the value histograms that misled date ranges', async () => {
  const { database, cleanup } = await freshDatabase('sqlite');
  try {
    const db = database.db;
    const u = await createUser(db, { username: 'stats' });
    for (let i = 0; i < 50; i++) await createPost(db, { uploaderId: u, createdAt: Date.parse('2026-01-01') + i * 3_600_000 });
    await sql`ANALYZE`.execute(db);
    const count = async (table: string) => Number((await sql<{ n: number }>`SELECT count(*) AS n FROM ${sql.table(table)}`.execute(db)).rows[0].n);
    assert.ok((await count('sqlite_stat4')) > 0, 'ANALYZE wrote histograms');
    await dropHistograms(db);
    assert.equal(await count('sqlite_stat4'), 0);
    assert.ok((await count('sqlite_stat1')) > 0, 'row counts stay');
    const plan = await sql<{ detail: string }>`EXPLAIN QUERY PLAN SELECT id FROM posts WHERE created_at >= 0 AND created_at <= ${Date.parse('2026-01-02')} ORDER BY created_at DESC, id DESC LIMIT 24`.execute(db);
    assert.match(plan.rows.map((r) => r.detail).join(' | '), /posts_created/);
  } finally {
    await cleanup();
  }
});
