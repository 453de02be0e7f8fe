// The dataset builder's SQLite on a worker thread (bench/sqlite-worker-dialect.ts): writes are
// queued without waiting, yet nothing is lost or reordered, and a failed write is not swallowed.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { sql } from 'kysely';
import { WorkerSqliteDialect } from '../bench/sqlite-worker-dialect.ts';
import { Database } from '../src/db/engine.ts';

const open = (file: string, pragmas: [string, string?][] = []) => new Database({ dialect: new WorkerSqliteDialect(file, pragmas) }, 'sqlite');

test('queued writes all land, in order, before the next read; a transaction commits them', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ib-worker-'));
  const db = open(path.join(dir, 'w.db'), [['journal_mode = OFF', 'off']]);
  try {
    await sql`create table t (id integer primary key, v text not null)`.execute(db);
    await db.transaction().execute(async (trx) => {
      for (let i = 1; i <= 500; i++)
        await trx
          .insertInto('t' as never)
          .values({ id: i, v: `v${i}` } as never)
          .execute();
      await sql`update t set v = 'last' where id = 500`.execute(trx);
    });
    const rows = (await sql<{ n: number; top: string }>`select count(*) as n, (select v from t where id = 500) as top from t`.execute(db)).rows;
    assert.deepEqual(rows, [{ n: 500, top: 'last' }]);
  } finally {
    await db.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a write that fails makes the next statement that waits fail with its error, and every one after', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ib-worker-'));
  const db = open(path.join(dir, 'w.db'));
  try {
    await sql`create table t (id integer primary key)`.execute(db);
    await sql`insert into t (id) values (1)`.execute(db);
    await sql`insert into t (id) values (1)`.execute(db); // queued: its failure comes later
    await assert.rejects(sql`select count(*) from t`.execute(db), /UNIQUE constraint failed/);
    await assert.rejects(sql`insert into t (id) values (2)`.execute(db), /UNIQUE constraint failed/);
  } finally {
    await db.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a pragma the connection must be given and is refused stops every statement', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ib-worker-'));
  const db = open(path.join(dir, 'w.db'), [['journal_mode = OFF', 'wal']]);
  try {
    await assert.rejects(sql`select 1`.execute(db), /SQLite refused journal_mode = OFF/);
  } finally {
    await db.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
