import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { datasetBytes, type Dataset } from '../bench/dataset.ts';
import { warmFileCache } from '../bench/file-cache.ts';
import { databaseKinds, freshDatabase } from './helpers.ts';

for (const kind of databaseKinds()) {
  test(`${kind}: the bench reads the whole database through the OS's cache, and nothing once its time is up`, async () => {
    const fresh = await freshDatabase(kind);
    try {
      const d = { kind, dataDir: fresh.dataDir, schema: fresh.schema } as Dataset;
      const adminUrl = process.env.TEST_DATABASE_URL ?? '';
      // SQLite: the dataset's size as the bench reports it (its files). PostgreSQL: the main fork
      // of each table and index of the schema (the bench's size adds TOAST and the other forks).
      let expected: number;
      if (kind === 'sqlite') expected = await datasetBytes(d, adminUrl);
      else {
        const admin = new pg.Client({ connectionString: adminUrl });
        await admin.connect();
        const { rows } = await admin.query<{ n: string }>(
          `select coalesce(sum(pg_relation_size(c.oid)), 0)::bigint as n from pg_class c
           join pg_namespace n on n.oid = c.relnamespace where n.nspname = $1 and c.relkind in ('r', 'i', 'm')`,
          [fresh.schema],
        );
        await admin.end();
        expected = Number(rows[0].n);
      }
      assert.ok(expected > 0, 'a migrated database has pages');
      const warmed = await warmFileCache(d, adminUrl);
      assert.equal(warmed.bytes, expected);
      assert.equal((await warmFileCache(d, adminUrl, 0)).bytes, 0);
    } finally {
      await fresh.cleanup();
    }
  });
}

test('--no-file-cache turns the reading off; it is on by default', async () => {
  const { defaultOptions, parseBenchArgs } = await import('../bench/run.ts');
  assert.equal(defaultOptions().fileCache, true);
  assert.equal(parseBenchArgs(['--no-file-cache']).fileCache, false);
  assert.equal(parseBenchArgs([]).fileCache, undefined);
});
