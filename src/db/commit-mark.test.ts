import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { databaseKinds, freshDatabase } from '../../test/helpers.ts';
import { bumpVersion, counter, versions } from './counters.ts';
import { openDatabase, type Database } from './database.ts';

const betterSqlite = createRequire(import.meta.url).resolve('better-sqlite3');

/** Moves the data version from another process, as another worker of the server would. */
function bumpFromAnotherProcess(file: string): void {
  const script = `const db = new (require(${JSON.stringify(betterSqlite)}))(${JSON.stringify(file)});
    db.pragma('busy_timeout = 5000');
    db.prepare("UPDATE counters SET value = value + 1 WHERE name = 'version'").run();
    db.close();`;
  execFileSync(process.execPath, ['-e', script]);
}

describe('commit marks: counters are read again only after a commit', () => {
  let db: Database;
  let file: string;
  let cleanup: () => Promise<void>;
  let statements = 0;

  before(async () => {
    const fresh = await freshDatabase('sqlite');
    ({ database: db, cleanup } = fresh);
    file = path.join(fresh.dataDir, 'imageboard.db');
    const rowsOf = db.rowsOf.bind(db);
    db.rowsOf = (query) => {
      statements++;
      return rowsOf(query);
    };
  });
  after(async () => cleanup());

  test('the mark stays while nothing is committed, and the counters are not read again', async () => {
    const first = db.commitMark();
    assert.ok(first, 'a SQLite file in WAL mode has a mark');
    const before = await versions(db);
    const version = await counter(db, 'version');
    const read = statements;
    assert.deepEqual(await versions(db), before);
    assert.equal(await counter(db, 'version'), version);
    assert.equal(statements, read, 'no statement while the mark is unchanged');
    assert.ok(db.commitMark()!.equals(db.commitMark()!));
  });

  test("another process's commit moves the mark, and the next read sees its write", async () => {
    const before = await counter(db, 'version');
    const { version } = await versions(db);
    const mark = db.commitMark()!;
    bumpFromAnotherProcess(file);
    assert.ok(!db.commitMark()!.equals(mark));
    assert.equal(await counter(db, 'version'), before + 1);
    assert.equal((await versions(db)).version, version + 1);
  });

  test("this connection's own commit moves the mark", async () => {
    const before = await counter(db, 'version');
    await db.transaction().execute(async (trx) => {
      await bumpVersion(trx);
      assert.equal(db.commitMark(), null, 'no mark inside a transaction');
      assert.equal(await counter(trx, 'version'), before + 1, 'the transaction sees its own write');
    });
    assert.equal(await counter(db, 'version'), before + 1);
  });

  test('no mark for SQLite in memory, nor for PostgreSQL', async () => {
    const memory = await openDatabase({ url: '', dataDir: '', sqliteFile: ':memory:' });
    try {
      assert.equal(memory.commitMark(), null);
    } finally {
      await memory.close();
    }
    if (!databaseKinds().includes('postgres')) return;
    const pg = await freshDatabase('postgres');
    try {
      assert.equal(pg.database.commitMark(), null);
    } finally {
      await pg.cleanup();
    }
  });
});
