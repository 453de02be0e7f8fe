import { test } from 'node:test';
import assert from 'node:assert/strict';
import os from 'node:os';
import { sql } from 'kysely';
import { loadConfig } from '../config.ts';
import { openDatabase } from './database.ts';

const url = process.env.TEST_DATABASE_URL;

/** The server processes (PostgreSQL backends) that answered `queries` statements sent at once. */
async function backendsUsed(poolSize: string | undefined, queries: number): Promise<number> {
  const config = loadConfig({ DATABASE_URL: url, DATABASE_POOL_SIZE: poolSize });
  const database = await openDatabase({ url: config.databaseUrl, dataDir: os.tmpdir(), poolSize: config.databasePoolSize, migrations: 'none' });
  try {
    const sleep = () => sql<{ pid: number }>`select pg_backend_pid() as pid, pg_sleep(0.3)`.execute(database);
    const results = await Promise.all(Array.from({ length: queries }, sleep));
    return new Set(results.map((r) => r.rows[0].pid)).size;
  } finally {
    await database.close();
  }
}

test('DATABASE_POOL_SIZE caps the connections one process opens to PostgreSQL', { skip: url ? false : 'TEST_DATABASE_URL is not set' }, async () => {
  assert.equal(await backendsUsed('3', 9), 3, 'nine statements at once share three connections');
  assert.equal(await backendsUsed(undefined, 14), 10, 'unset: ten, as before the setting existed');
});
