import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { PostgresDialect } from 'kysely';
import { Database } from '../src/db/database.ts';
import { seedDatabase } from '../src/seed/generate.ts';
import { copyText, copyValue, OneClientPool, setAsideForLoad } from '../bench/pg-copy.ts';
import { freshDatabase } from './helpers.ts';

const url = process.env.TEST_DATABASE_URL;
const onPostgres = { skip: url ? false : 'needs TEST_DATABASE_URL' };

test('COPY text: NULL is \\N; backslash, tab, newline and carriage return are escaped; the rest goes as it is', () => {
  assert.equal(copyValue(null), '\\N');
  assert.equal(copyValue(undefined), '\\N');
  assert.equal(copyValue(''), '');
  assert.equal(copyValue('\\N'), '\\\\N', 'the text \\N is not NULL');
  assert.equal(copyValue('a\\b\tc\nd\re'), 'a\\\\b\\tc\\nd\\re');
  assert.equal(copyValue('\\.'), '\\\\.', 'never the end-of-data marker');
  assert.equal(copyValue('żółw 猫 🐢 "q" \'s\' ,;|'), 'żółw 猫 🐢 "q" \'s\' ,;|');
  assert.equal(copyValue(true), 't');
  assert.equal(copyValue(false), 'f');
  assert.equal(copyValue(0), '0');
  assert.equal(copyValue(-12), '-12');
  assert.equal(copyValue(1_765_000_000_123), '1765000000123', 'epoch ms for bigint columns, in full');
  assert.equal(copyValue(0.1), '0.1');
  assert.equal(copyValue(12n ** 20n), '3833759992447475122176');
  assert.equal(copyValue(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6))), '2026-01-02T03:04:05.006Z');
  assert.equal(copyValue(Buffer.from([0, 0xff, 0x10])), '\\\\x00ff10');
  assert.equal(copyValue({ a: 'x\ty' }), '{"a":"x\\\\ty"}', 'JSON, its own escapes escaped again');
  assert.throws(() => copyValue([1, 2]), TypeError);
  assert.equal(
    copyText(
      ['a', 'b'],
      [
        { a: 1, b: null },
        { b: 'x', a: 2 },
      ],
    ),
    '1\t\\N\n2\tx\n',
  );
});

test('COPY through OneClientPool stores what an INSERT of the same values stores', onPostgres, async () => {
  const fresh = await freshDatabase('postgres');
  const client = new pg.Client({ connectionString: url, options: `-c search_path=${fresh.schema}` });
  await client.connect();
  const pool = new OneClientPool(client);
  try {
    await client.query('create table copy_check (k int, s text, n bigint, d double precision, b boolean, y bytea, t timestamptz)');
    const rows = [
      { k: 1, s: 'tab\there\nnewline\r\\back\\slash \\N', n: 1_765_000_000_123, d: 0.1, b: true, y: Buffer.from('\\\t'), t: new Date(0) },
      { k: 2, s: 'żółw 猫 🐢', n: -1, d: -1.5e300, b: false, y: Buffer.alloc(0), t: new Date(Date.UTC(2026, 5, 1, 12)) },
      { k: 3, s: null, n: null, d: null, b: null, y: null, t: null },
      { k: 4, s: '', n: 0, d: 0, b: false, y: Buffer.from([0]), t: new Date(1) },
    ];
    const columns = Object.keys(rows[0]);
    await pool.write('copy_check', columns, rows);
    for (const r of rows)
      await client.query(`insert into copy_check values (${columns.map((_, i) => `$${i + 1}`).join(',')})`, [r.k + 10, r.s, r.n, r.d, r.b, r.y, r.t]);
    const read = async (from: number) =>
      (await client.query(`select s, n, d, b, y, t from copy_check where k between ${from} and ${from + 9} order by k`)).rows;
    const copied = await read(1);
    assert.deepEqual(copied, await read(11));
    assert.equal(copied[0].s, rows[0].s);
    assert.equal(copied[2].s, null);
    assert.equal(copied[3].s, '');
  } finally {
    await pool.end();
    await fresh.cleanup();
  }
});

test(
  'a board seeded with COPY, keys and indexes set aside, holds the same rows, ids, sequences, keys and indexes as one seeded with INSERTs',
  onPostgres,
  async () => {
    // 3,000 posts: two posts transactions and several post_tags batches (10,666 rows each).
    const options = { posts: 3_000, seed: 5, until: Date.UTC(2026, 0, 1), mediaDir: null };
    const inserted = await freshDatabase('postgres');
    const copied = await freshDatabase('postgres');
    const client = new pg.Client({ connectionString: url, options: `-c search_path=${copied.schema}` });
    await client.connect();
    const pool = new OneClientPool(client);
    let copies = 0;
    const counted = {
      write: (...a: Parameters<OneClientPool['write']>) => {
        copies++;
        return pool.write(...a);
      },
    };
    const db = new Database({ dialect: new PostgresDialect({ pool }) }, 'postgres');
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      const a = await seedDatabase(inserted.database, options);
      const restore = await setAsideForLoad(client, copied.schema!);
      assert.equal(
        (await client.query(`select count(*)::int as n from pg_constraint where contype = 'f' and connamespace = $1::regnamespace`, [copied.schema])).rows[0].n,
        0,
      );
      const b = await seedDatabase(db, options, undefined, counted);
      await restore();
      assert.deepEqual(b, a);
      assert.ok(copies > 10, `the rows went in by COPY (${copies} COPY statements)`);

      const tables = async (schema: string) =>
        (
          await admin.query<{ t: string }>(`select tablename as t from pg_tables where schemaname = $1 and tablename not like 'kysely%' order by 1`, [schema])
        ).rows.map((r) => r.t);
      const names = await tables(inserted.schema!);
      assert.deepEqual(await tables(copied.schema!), names);
      const rows = async (schema: string, table: string) =>
        (await admin.query<{ r: string }>(`select x::text as r from "${schema}"."${table}" x order by 1`)).rows.map((r) => r.r);
      let compared = 0;
      for (const t of names) {
        const expected = await rows(inserted.schema!, t);
        assert.deepEqual(await rows(copied.schema!, t), expected, t);
        compared += expected.length;
      }
      assert.ok(compared > 50_000, `${compared} rows compared`);
      const sequences = async (schema: string) =>
        (await admin.query(`select sequencename, last_value from pg_sequences where schemaname = $1 order by 1`, [schema])).rows;
      assert.deepEqual(await sequences(copied.schema!), await sequences(inserted.schema!));
      // The keys and indexes came back as the migrations made them.
      const catalogue = async (schema: string) =>
        [
          ...(
            await admin.query<{ d: string }>(
              `select replace(c.relname || ' ' || k.conname || ' ' || pg_get_constraintdef(k.oid), $1, 'S') as d from pg_constraint k join pg_class c on c.oid = k.conrelid
           where k.connamespace = $1::regnamespace`,
              [schema],
            )
          ).rows.map((r) => r.d),
          ...(await admin.query<{ d: string }>('select replace(indexdef, $1, $2) as d from pg_indexes where schemaname = $1', [schema, 'S'])).rows.map(
            (r) => r.d,
          ),
        ].sort();
      const made = await catalogue(inserted.schema!);
      assert.ok(made.some((d) => d.includes('FOREIGN KEY')) && made.some((d) => d.includes('posts_title_trgm')));
      assert.deepEqual(await catalogue(copied.schema!), made);
    } finally {
      await admin.end();
      await db.destroy();
      await pool.end();
      await inserted.cleanup();
      await copied.cleanup();
    }
  },
);
