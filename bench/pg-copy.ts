import { finished } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type { BulkWriter } from '../src/seed/inserter.ts';

/**
 * The benchmark's PostgreSQL dataset written with COPY instead of multi-row INSERTs, which spare
 * both sides building, sending and parsing 32,000 parameters a statement (a fifth of the load at
 * 100,000 posts; most of the rest is saved by setAsideForLoad below). COPY must run inside the
 * seeder's Kysely transactions, so Kysely and COPY share one pg.Client: Kysely sees it as a pool
 * of one, and the seeder never runs two statements at once.
 */
export class OneClientPool implements PostgresPool, BulkWriter {
  private held = false;
  private ended = false;
  private readonly lent: PostgresPoolClient;

  constructor(private readonly client: pg.Client) {
    this.lent = {
      query: client.query.bind(client) as unknown as PostgresPoolClient['query'],
      release: () => {
        this.held = false;
      },
    };
  }

  async connect(): Promise<PostgresPoolClient> {
    // A second borrower would run its statements inside the first one's transaction.
    if (this.held) throw new Error('OneClientPool: the connection is already in use');
    this.held = true;
    return this.lent;
  }

  /** Ends the connection; again is nothing (Kysely ends its pool only if it ever used it). */
  async end(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    await this.client.end();
  }

  async write(table: string, columns: readonly string[], rows: readonly Record<string, unknown>[]): Promise<void> {
    const names = columns.map(quoteName).join(',');
    const stream = this.client.query(copyFrom(`COPY ${quoteName(table)} (${names}) FROM STDIN`));
    stream.end(copyText(columns, rows));
    await finished(stream);
  }
}

const quoteName = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Rows in COPY's text format: values separated by tabs, one row a line. */
export function copyText(columns: readonly string[], rows: readonly Record<string, unknown>[]): string {
  let out = '';
  for (const row of rows) {
    for (let i = 0; i < columns.length; i++) out += (i === 0 ? '' : '\t') + copyValue(row[columns[i]]);
    out += '\n';
  }
  return out;
}

const SPECIAL = /[\\\t\n\r]/;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/**
 * One value in COPY's text format, as pg would send it as a parameter (numbers and bigints in
 * decimal, Dates as ISO times, bytes as bytea hex, other objects as JSON), then escaped: NULL is
 * \N, and a backslash, tab, newline or carriage return inside a value is written with a backslash.
 */
export function copyValue(v: unknown): string {
  if (v === null || v === undefined) return '\\N';
  let text: string;
  if (typeof v === 'string') text = v;
  else if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  else if (typeof v === 'boolean') return v ? 't' : 'f';
  else if (v instanceof Date) return v.toISOString();
  else if (v instanceof Uint8Array) return `\\\\x${Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex')}`;
  else if (Array.isArray(v)) throw new TypeError('copyValue: arrays are not written (the seeder has no array columns)');
  else text = JSON.stringify(v);
  return SPECIAL.test(text) ? text.replace(/[\\\t\n\r]/g, (c) => ESCAPES[c]) : text;
}

/**
 * Drops the schema's foreign keys, and its indexes that back no constraint, before a bulk load;
 * the function returned puts them back as they were. At 100,000 posts COPY spent two thirds of
 * its time in the foreign keys' per-row checks (each locks the row it refers to) and much of the
 * rest keeping secondary indexes (a trigram one among them) in order, row by row; built once
 * afterwards they take a few seconds, and adding a key back still checks every row. Primary keys
 * and unique constraints stay: the seeder's triggers need them (ON CONFLICT on title_vocab).
 */
export async function setAsideForLoad(client: pg.Client, schema: string, log: (line: string) => void = () => {}): Promise<() => Promise<void>> {
  const keys = (
    await client.query<{ t: string; name: string; def: string }>(
      `select format('%I.%I', $1::text, c.relname) as t, k.conname as name, pg_get_constraintdef(k.oid) as def
       from pg_constraint k join pg_class c on c.oid = k.conrelid
       where k.contype = 'f' and k.connamespace = $1::regnamespace order by c.relname, k.conname`,
      [schema],
    )
  ).rows;
  const indexes = (
    await client.query<{ name: string; def: string }>(
      `select indexname as name, indexdef as def from pg_indexes i
       where schemaname = $1 and indexdef not like 'CREATE UNIQUE %'
         and not exists (select 1 from pg_constraint c where c.conindid = format('%I.%I', i.schemaname, i.indexname)::regclass)
       order by tablename, indexname`,
      [schema],
    )
  ).rows;
  for (const k of keys) await client.query(`alter table ${k.t} drop constraint ${quoteName(k.name)}`);
  for (const ix of indexes) await client.query(`drop index ${quoteName(schema)}.${quoteName(ix.name)}`);
  return async () => {
    // Index keys sorted, and the keys' checks (one join a key) hashed, in memory rather than in runs on disk.
    await client.query(`set maintenance_work_mem = '1GB'`);
    await client.query(`set work_mem = '1GB'`);
    let t = performance.now();
    for (const ix of indexes) await client.query(ix.def);
    log(`  indexes    ${indexes.length} rebuilt in ${((performance.now() - t) / 1000).toFixed(1)}s`);
    t = performance.now();
    for (const k of keys) await client.query(`alter table ${k.t} add constraint ${quoteName(k.name)} ${k.def}`);
    log(`  foreign keys ${keys.length} added back (every row checked) in ${((performance.now() - t) / 1000).toFixed(1)}s`);
    await client.query('reset maintenance_work_mem');
    await client.query('reset work_mem');
  };
}
