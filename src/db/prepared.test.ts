import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { databaseKinds, freshDatabase } from '../../test/helpers.ts';
import { createPost, createUser } from '../../test/factories.ts';
import type { Database } from './database.ts';
import { prepared, preparedLookup, preparedOnDatabase } from './prepared.ts';

describe('prepared queries: built once per database, run with new values', () => {
  const dbs: { kind: string; database: Database; cleanup: () => Promise<void> }[] = [];
  let builds = 0;
  // Posts of one uploader, newest first, a page at a time: values in a comparison, a limit and an offset.
  const page = prepared((db, p: { uploader: number; limit: number; offset: number }) => {
    builds++;
    return db.selectFrom('posts').select('title').where('uploader_id', '=', p.uploader).orderBy('created_at', 'desc').limit(p.limit).offset(p.offset);
  });
  const named = preparedOnDatabase((db, p: { names: unknown }) =>
    db
      .selectFrom('posts')
      .select('title')
      .where(db.oneOf(sql.ref('title'), p.names))
      .orderBy('title'),
  );

  before(async () => {
    for (const kind of databaseKinds()) {
      const fresh = await freshDatabase(kind);
      dbs.push({ kind, ...fresh });
      const db = fresh.database;
      for (const [name, count] of [
        ['ann', 5],
        ['bob', 3],
      ] as const) {
        const u = await createUser(db, { username: name });
        for (let i = 0; i < count; i++) await createPost(db, { uploaderId: u, title: `${name}-${i}`, createdAt: 1_700_000_000_000 + i });
      }
    }
  });
  after(async () => {
    for (const d of dbs) await d.cleanup();
  });

  const noPostgres = process.env.TEST_DATABASE_URL ? false : 'TEST_DATABASE_URL is not set';
  test('on PostgreSQL a prepared query is sent by name (parsed once per connection); a query built anew is not', { skip: noPostgres }, async () => {
    const pg = dbs.find((d) => d.kind === 'postgres')!;
    const kept = await pg.database.transaction().execute(async (trx) => {
      const newestOf = prepared((db, p: { uploader: number }) =>
        db.selectFrom('posts').select('title').where('uploader_id', '=', p.uploader).orderBy('id', 'desc').limit(1),
      );
      assert.deepEqual(
        (await newestOf(trx, { uploader: 2 })).map((r) => r.title),
        ['bob-2'],
      );
      await trx.selectFrom('posts').select('id').where('title', '=', 'bob-1').execute();
      return (await sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements`.execute(trx)).rows.map((r) => r.statement);
    });
    assert.ok(
      kept.some((text) => /"uploader_id" = \$1/.test(text)),
      `the prepared query is among the connection's named statements: ${JSON.stringify(kept)}`,
    );
    assert.ok(!kept.some((text) => text.includes('"title" = $1')), 'a query built on the spot is not named');
  });

  test('each call binds its own values; the query is built once per database', async () => {
    for (const { kind, database } of dbs) {
      const titles = async (uploader: number, limit: number, offset: number) => (await page(database, { uploader, limit, offset })).map((r) => r.title);
      assert.deepEqual(await titles(1, 2, 0), ['ann-4', 'ann-3'], kind);
      assert.deepEqual(await titles(1, 10, 3), ['ann-1', 'ann-0'], kind);
      assert.deepEqual(await titles(2, 10, 0), ['bob-2', 'bob-1', 'bob-0'], kind);
      assert.deepEqual(await titles(3, 10, 0), [], kind);
    }
    assert.equal(builds, dbs.length);
  });

  test('a list goes in as one value, of any length, on each engine', async () => {
    for (const { kind, database } of dbs) {
      const titles = async (names: string[]) => (await named(database, { names: database.listParam(names) })).map((r) => r.title);
      assert.deepEqual(await titles(['bob-1', 'ann-0']), ['ann-0', 'bob-1'], kind);
      assert.deepEqual(await titles(['ann-4']), ['ann-4'], kind);
      assert.deepEqual(await titles(['nobody', 'it\'s "quoted"']), [], kind);
      assert.deepEqual(await titles([]), [], kind);
    }
  });

  // Posts by title, with the uploader's name: a lookup by a text key, one row a key here.
  const byTitle = preparedLookup(
    (db, keyIs) =>
      db
        .selectFrom('posts')
        .innerJoin('users', 'users.id', 'posts.uploader_id')
        .select(['posts.title', 'users.username'])
        .where(keyIs(sql.ref('posts.title'))),
    (row) => row.title,
  );
  // Posts by uploader: a key with several rows.
  const byUploader = preparedLookup(
    (db, keyIs) =>
      db
        .selectFrom('posts')
        .select(['uploader_id', 'title'])
        .where(keyIs(sql.ref('uploader_id')))
        .orderBy('title'),
    (row) => row.uploader_id,
  );

  test('a lookup made by many callers at once gives each its own rows; on PostgreSQL they share statements', async () => {
    for (const { kind, database } of dbs) {
      let statements = 0;
      const spy = database.withPlugin({
        transformQuery: (args) => args.node,
        transformResult: async (args) => {
          statements++;
          return args.result;
        },
      });
      const titles = ['ann-0', 'bob-2', 'nobody', 'ann-0', 'it\'s "quoted", {x}', 'bob-1', 'ann-4'];
      const found = await Promise.all(titles.map((t) => byTitle(spy, t)));
      assert.deepEqual(
        found.map((rows) => rows.map((r) => `${r.title} by ${r.username}`)),
        [['ann-0 by ann'], ['bob-2 by bob'], [], ['ann-0 by ann'], [], ['bob-1 by bob'], ['ann-4 by ann']],
        kind,
      );
      const uploads = await Promise.all([1, 2, 3, 2].map((u) => byUploader(spy, u)));
      assert.deepEqual(
        uploads.map((rows) => rows.map((r) => r.title)),
        [['ann-0', 'ann-1', 'ann-2', 'ann-3', 'ann-4'], ['bob-0', 'bob-1', 'bob-2'], [], ['bob-0', 'bob-1', 'bob-2']],
        kind,
      );
      // SQLite runs each call's statement in turn; PostgreSQL sends the first call alone and the rest together.
      assert.equal(statements, kind === 'postgres' ? 4 : 11, `${kind}: statements for 11 calls`);
      // Inside a transaction each call is its own statement and sees the transaction's writes.
      const inside = await database.transaction().execute(async (trx) => {
        await trx.updateTable('posts').set({ title: 'renamed' }).where('title', '=', 'ann-1').execute();
        return Promise.all([byTitle(trx, 'renamed'), byTitle(trx, 'ann-1')]);
      });
      assert.deepEqual(
        inside.map((rows) => rows.length),
        [1, 0],
        kind,
      );
      await database.updateTable('posts').set({ title: 'ann-1' }).where('title', '=', 'renamed').execute();
    }
  });
  test('a read made while another caller holds a transaction open waits for it, and sees what it committed', async () => {
    const version = prepared(() => sql<{ value: number }>`SELECT value FROM counters WHERE name = 'version'`);
    for (const { kind, database } of dbs) {
      const before = Number((await version(database, {}))[0].value);
      let release = () => {};
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      let written = () => {};
      const inside = new Promise<void>((resolve) => {
        written = resolve;
      });
      const writer = database.transaction().execute(async (trx) => {
        await trx
          .updateTable('counters')
          .set({ value: before + 1000 })
          .where('name', '=', 'version')
          .execute();
        written();
        await gate;
      });
      await inside;
      let read: number | null = null;
      const reading = version(database, {}).then((rows) => {
        read = Number(rows[0].value);
      });
      await new Promise((resolve) => setTimeout(resolve, 20));
      // SQLite's one connection is the transaction's: the read must not run on it in the middle.
      if (kind === 'sqlite') assert.equal(read, null, 'read inside an open transaction of another caller');
      else assert.notEqual(read, before + 1000, 'an uncommitted write was read');
      release();
      await writer;
      await reading;
      if (kind === 'sqlite') assert.equal(read, before + 1000);
      await database.updateTable('counters').set({ value: before }).where('name', '=', 'version').execute();
    }
  });
});
