import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { capturingQueries, freshDatabase } from '../../test/helpers.ts';
import { createPost, createUser, postRow } from '../../test/factories.ts';
import { compactSearchIndex, dropHistograms } from './statistics.ts';
import { sqlSearch } from '../search/strategies/sql.ts';
import { ORDERS } from '../search/expr.ts';

test('SQLite keeps the row counts of ANALYZE and drops the value histograms that misled date ranges', async () => {
  const { database, cleanup } = await freshDatabase('sqlite');
  try {
    const db = database;
    const u = await createUser(db, { username: 'stats' });
    for (let i = 0; i < 50; i++) await createPost(db, { uploaderId: u, createdAt: Date.parse('2026-01-01') + i * 3_600_000 });
    await sql`ANALYZE`.execute(db);
    const count = async (table: string) => Number((await sql<{ n: number }>`SELECT count(*) AS n FROM ${sql.table(table)}`.execute(db)).rows[0].n);
    assert.ok((await count('sqlite_stat4')) > 0, 'ANALYZE wrote histograms');
    await dropHistograms(db);
    assert.equal(await count('sqlite_stat4'), 0);
    assert.ok((await count('sqlite_stat1')) > 0, 'row counts stay');
    const plan = await sql<{
      detail: string;
    }>`EXPLAIN QUERY PLAN SELECT id FROM posts WHERE created_at >= 0 AND created_at <= ${Date.parse('2026-01-02')} ORDER BY created_at DESC, id DESC LIMIT 24`.execute(
      db,
    );
    assert.match(plan.rows.map((r) => r.detail).join(' | '), /posts_created/);
  } finally {
    await cleanup();
  }
});

test('with statistics, a later page of one rating, newest first, walks the date index instead of sorting every post of the rating', async () => {
  const { database, cleanup } = await freshDatabase('sqlite');
  try {
    const db = database;
    const u = await createUser(db, { username: 'rater' });
    const ratings = ['safe', 'safe', 'safe', 'safe', 'safe', 'safe', 'safe', 'sketchy', 'sketchy', 'unsafe'] as const;
    // Enough posts that sorting one rating's share looks costly or cheap for real.
    for (let at = 0; at < 5_000; at += 1000) {
      const rows = Array.from({ length: 1000 }, (_, i) =>
        postRow({ uploaderId: u, rating: ratings[(at + i) % 10], createdAt: Date.parse('2026-01-01') + (at + i) * 60_000 }),
      );
      await db.insertInto('posts').values(rows).execute();
    }
    await sql`ANALYZE`.execute(db);
    await dropHistograms(db);
    // The statement the list runs, captured as it is compiled, then explained.
    const { spy, seen, plan } = capturingQueries(db);
    await sqlSearch(spy, { expr: { kind: 'rating', values: ['unsafe'] }, order: ORDERS.newest, seed: 0, wildcards: [] }, 48, 24, 2_000);
    const detail = await plan(seen.find((q) => /order by/i.test(q.sql))!);
    assert.match(detail, /posts_created/);
    assert.doesNotMatch(detail, /TEMP B-TREE FOR ORDER BY/);
  } finally {
    await cleanup();
  }
});

test('SQLite: the title index, grown a post at a time, is merged into one segment and finds the same posts', async () => {
  const { database, cleanup } = await freshDatabase('sqlite');
  try {
    const db = database;
    const u = await createUser(db, { username: 'fts' });
    const words = ['storm', 'island', 'stormy night', 'lighthouse'];
    for (let i = 0; i < 60; i++) await createPost(db, { uploaderId: u, title: `${words[i % 4]} ${i}`, createdAt: Date.parse('2026-01-01') + i * 60_000 });
    const segments = async () => Number((await sql<{ n: number }>`SELECT count(DISTINCT segid) AS n FROM posts_fts_idx`.execute(db)).rows[0].n);
    const found = async (word: string) =>
      (await sql<{ id: number }>`SELECT rowid AS id FROM posts_fts WHERE posts_fts MATCH ${`"${word}"`} ORDER BY rowid`.execute(db)).rows.map((r) => r.id);
    const before = await Promise.all(['storm', 'isl', 'house'].map(found));
    assert.ok((await segments()) > 1, 'uploads one at a time leave several segments');
    await compactSearchIndex(db);
    assert.equal(await segments(), 1);
    assert.deepEqual(await Promise.all(['storm', 'isl', 'house'].map(found)), before);
    assert.equal(before[0].length, 30);
  } finally {
    await cleanup();
  }
});
