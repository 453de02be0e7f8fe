/**
 * The schema a fresh database gets, held to a committed snapshot per engine:
 * src/db/migrations/schema-sqlite.snapshot.txt and schema-postgres.snapshot.txt.
 *
 * migrations.test.ts holds each migration file to a checksum, but the initial migration builds
 * some of its SQL from src/db/schema/ (list items, the tag change log, title words), which the
 * running code shares: editing those files changes what a fresh database gets without touching a
 * checksum, while existing databases keep what they had. This test catches that, and any other
 * change to the schema, whatever file it comes from.
 *
 * When the change is intended, it also needs a new migration that brings existing databases to
 * the same schema (list it in migrate.ts and checksums.json); then regenerate the snapshots and
 * commit them with it:
 *
 *   UPDATE_SCHEMA_SNAPSHOT=1 TEST_DATABASE_URL=postgres://... node scripts/test.mjs schema-snapshot
 *
 * (without TEST_DATABASE_URL only the SQLite snapshot is written).
 *
 * What a snapshot holds, one line per thing, sorted, with whitespace outside quoted strings
 * collapsed (re-indenting SQL in a template literal is no schema change):
 * - SQLite: every row of sqlite_master (type, name, table, sql; SQLite's automatic indexes have no
 *   sql and are listed by name), PRAGMA table_xinfo of every table in column order, and per table
 *   the order its triggers were created in (SQLite fires them in reverse creation order).
 * - PostgreSQL, in a schema of its own, its name taken out: relations (pg_class but indexes),
 *   columns (information_schema.columns, with the length, identity and generation the data_type
 *   alone does not show), indexes (pg_indexes.indexdef), constraints (pg_get_constraintdef),
 *   triggers (pg_get_triggerdef; PostgreSQL fires them in name order) and functions
 *   (pg_get_functiondef).
 * Left out: Kysely's kysely_migration and kysely_migration_lock tables, rows and definitions alike.
 * Kysely creates them, not a migration of ours; their shape follows the Kysely version, and a change
 * there calls for no migration of ours, which is what a failure here asks for. Rows a migration
 * writes (the counters) are data, not schema, and are not held here either.
 *
 * PostgreSQL deparses definitions (indexes, triggers, function headers) in its own words, which can
 * change between major versions: the snapshot records the version it was taken on, and a failure on
 * another one says so. It is of a database with pg_trgm (the trigram indexes); on one without, the
 * PostgreSQL test is skipped with that reason. It runs only when TEST_DATABASE_URL is set.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { freshDatabase, type DbKind } from '../../test/helpers.ts';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
const snapshotFile = (kind: DbKind) => path.join(MIGRATIONS_DIR, `schema-${kind}.snapshot.txt`);
const UPDATE = process.env.UPDATE_SCHEMA_SNAPSHOT === '1';
const REGENERATE = 'UPDATE_SCHEMA_SNAPSHOT=1 TEST_DATABASE_URL=postgres://... node scripts/test.mjs schema-snapshot';

/** Kysely's bookkeeping tables (see the header). */
const KYSELY_TABLES = new Set(['kysely_migration', 'kysely_migration_lock']);

/**
 * SQL text with every run of whitespace outside '...' strings and "..." identifiers made one
 * space, trimmed, and each -- comment put in a block comment (on one line it would run on past its
 * end). A doubled quote inside a string ('it''s') closes and reopens it: its text stays whole just the same.
 */
function collapseWhitespace(text: string): string {
  let out = '';
  let quote: string | null = null;
  let space = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quote) {
      out += ch;
      if (ch === quote) quote = null;
    } else if (/\s/.test(ch)) {
      space = true;
    } else {
      if (space && out) out += ' ';
      space = false;
      if (ch === '-' && text[i + 1] === '-') {
        const end = text.indexOf('\n', i);
        out += `/* ${text.slice(i + 2, end === -1 ? undefined : end).trim()} */`;
        i = end === -1 ? text.length : end - 1;
        continue;
      }
      out += ch;
      if (ch === "'" || ch === '"') quote = ch;
    }
  }
  return out;
}

const show = (v: unknown) => (v === null || v === undefined ? 'null' : String(v));

/** What a snapshot holds: the version it was taken on, and its lines; or why this database cannot be compared. */
type Taken = { header: string; lines: string[] } | { skip: string };

async function sqliteSnapshot(db: Kysely<any>): Promise<Taken> {
  const objects = (
    await sql<{ type: string; name: string; tbl_name: string; sql: string | null }>`
      SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY rowid`.execute(db)
  ).rows.filter((o) => !KYSELY_TABLES.has(o.tbl_name));
  const entries: { key: string; lines: string[] }[] = [];
  for (const o of objects) {
    // sqlite_autoindex_*: made by SQLite for a UNIQUE or PRIMARY KEY constraint, which the table's sql shows.
    const text = o.sql === null ? '(no sql: made by SQLite for a constraint of the table)' : collapseWhitespace(o.sql);
    const lines = [`${o.type} ${o.name}${o.tbl_name === o.name ? '' : ` on ${o.tbl_name}`}: ${text}`];
    if (o.type === 'table') {
      const columns = await sql<Record<string, unknown>>`SELECT * FROM pragma_table_xinfo(${o.name}) ORDER BY cid`.execute(db);
      for (const c of columns.rows) {
        lines.push(
          `  column ${o.name}.${c.name}: cid ${c.cid} | type ${show(c.type)} | notnull ${c.notnull} | default ${show(c.dflt_value)} | pk ${c.pk} | hidden ${c.hidden}`,
        );
      }
    }
    entries.push({ key: `${o.type} ${o.name}`, lines });
  }
  // A table's triggers fire in the reverse of the order they were created in: an order to keep.
  const triggersOn = new Map<string, string[]>();
  for (const o of objects) if (o.type === 'trigger') triggersOn.set(o.tbl_name, [...(triggersOn.get(o.tbl_name) ?? []), o.name]);
  for (const [table, names] of triggersOn)
    entries.push({ key: `trigger order ${table}`, lines: [`trigger order on ${table} (created first to last): ${names.join(', ')}`] });
  const version = (await sql<{ v: string }>`SELECT sqlite_version() AS v`.execute(db)).rows[0].v;
  return { header: `taken on SQLite ${version}`, lines: sortedLines(entries) };
}

async function postgresSnapshot(db: Kysely<any>): Promise<Taken> {
  // Without pg_trgm the initial migration leaves out the trigram indexes: another schema, on purpose.
  const trigrams = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_opclass WHERE opcname = 'gin_trgm_ops'`.execute(db);
  if (!trigrams.rows[0].n) return { skip: 'pg_trgm is not available in this database: the snapshot is of a schema with its trigram indexes' };
  const schema = (await sql<{ s: string }>`SELECT current_schema() AS s`.execute(db)).rows[0].s;
  // The test's schema name, quoted or not, before a dot and then anywhere else.
  const unqualify = (text: string) => text.replace(new RegExp(`"?\\b${schema}\\b"?\\.`, 'g'), '').replace(new RegExp(`\\b${schema}\\b`, 'g'), '<schema>');
  const kysely = (table: string) => KYSELY_TABLES.has(table);
  const rows = async <T>(query: RawBuilder<T>) => (await query.execute(db)).rows;
  const entries: { key: string; lines: string[] }[] = [];
  // Column lines keep their indent under their table.
  const add = (key: string, ...lines: string[]) =>
    entries.push({ key, lines: lines.map((l) => (l.startsWith('  ') ? '  ' : '') + unqualify(collapseWhitespace(l))) });

  const kinds: Record<string, string> = { r: 'table', p: 'partitioned table', v: 'view', m: 'materialized view', S: 'sequence', f: 'foreign table', c: 'type' };
  const relations = await rows(sql<{ name: string; kind: string; persistence: string; view: string | null }>`
    SELECT c.relname AS name, c.relkind::text AS kind, c.relpersistence::text AS persistence,
      CASE WHEN c.relkind IN ('v', 'm') THEN pg_get_viewdef(c.oid) END AS view
    FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind <> 'i' AND c.relkind <> 'I'`);
  const columns = await rows(sql<Record<string, string | null>>`
    SELECT table_name, column_name, ordinal_position, data_type, udt_name, character_maximum_length, numeric_precision, numeric_scale,
      is_nullable, column_default, is_identity, identity_generation, is_generated, generation_expression, collation_name
    FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`);
  const sequenceOwner = await rows(sql<{ name: string }>`
    SELECT s.relname AS name FROM pg_class s JOIN pg_depend d ON d.objid = s.oid AND d.classid = 'pg_class'::regclass AND d.deptype IN ('a', 'i')
    JOIN pg_class t ON t.oid = d.refobjid WHERE s.relkind = 'S' AND s.relnamespace = current_schema()::regnamespace AND t.relname IN ('kysely_migration', 'kysely_migration_lock')`);
  const kyselySequences = new Set(sequenceOwner.map((s) => s.name));
  for (const r of relations) {
    if (kysely(r.name) || kyselySequences.has(r.name)) continue;
    const kind = kinds[r.kind] ?? `relkind ${r.kind}`;
    const persistence = r.persistence === 'u' ? ' (unlogged)' : '';
    const lines = [`${kind} ${r.name}${persistence}${r.view ? `: ${r.view}` : ''}`];
    for (const c of columns.filter((c) => c.table_name === r.name)) {
      let type = c.data_type === 'ARRAY' || c.data_type === 'USER-DEFINED' ? `${c.data_type} ${c.udt_name}` : String(c.data_type);
      if (c.character_maximum_length !== null) type += `(${c.character_maximum_length})`;
      if (c.data_type === 'numeric') type += `(${show(c.numeric_precision)},${show(c.numeric_scale)})`;
      const parts = [`#${c.ordinal_position} ${type}`, c.is_nullable === 'YES' ? 'nullable' : 'not null', `default ${show(c.column_default)}`];
      if (c.is_identity === 'YES') parts.push(`identity ${c.identity_generation}`);
      if (c.is_generated !== 'NEVER') parts.push(`generated ${c.is_generated} ${show(c.generation_expression)}`);
      if (c.collation_name !== null) parts.push(`collation ${c.collation_name}`);
      lines.push(`  column ${r.name}.${c.column_name}: ${parts.join(' | ')}`);
    }
    add(`relation ${r.name}`, ...lines);
  }

  for (const i of await rows(sql<{ table: string; name: string; def: string }>`
    SELECT tablename AS table, indexname AS name, indexdef AS def FROM pg_indexes WHERE schemaname = current_schema()`)) {
    if (!kysely(i.table)) add(`index ${i.name}`, `index ${i.name} on ${i.table}: ${i.def}`);
  }
  for (const c of await rows(sql<{ table: string | null; name: string; type: string; def: string }>`
    SELECT rel.relname AS table, con.conname AS name, con.contype::text AS type, pg_get_constraintdef(con.oid) AS def
    FROM pg_constraint con LEFT JOIN pg_class rel ON rel.oid = con.conrelid WHERE con.connamespace = current_schema()::regnamespace`)) {
    if (!kysely(c.table ?? '')) add(`constraint ${c.table} ${c.name}`, `constraint ${c.name} on ${show(c.table)} (${c.type}): ${c.def}`);
  }
  for (const t of await rows(sql<{ table: string; name: string; def: string; enabled: string }>`
    SELECT c.relname AS table, t.tgname AS name, pg_get_triggerdef(t.oid) AS def, t.tgenabled::text AS enabled
    FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid WHERE c.relnamespace = current_schema()::regnamespace AND NOT t.tgisinternal`)) {
    if (!kysely(t.table)) add(`trigger ${t.name}`, `trigger ${t.name} on ${t.table}${t.enabled === 'O' ? '' : ` (enabled ${t.enabled})`}: ${t.def}`);
  }
  for (const f of await rows(sql<{ name: string; kind: string; def: string | null }>`
    SELECT p.oid::regprocedure::text AS name, p.prokind::text AS kind, CASE WHEN p.prokind IN ('f', 'p') THEN pg_get_functiondef(p.oid) END AS def
    FROM pg_proc p WHERE p.pronamespace = current_schema()::regnamespace`)) {
    add(`function ${f.name}`, `function ${f.name}: ${f.def ?? `(prokind ${f.kind})`}`);
  }
  const version = (await sql<{ v: string }>`SELECT current_setting('server_version') AS v`.execute(db)).rows[0].v;
  return { header: `taken on PostgreSQL ${version}`, lines: sortedLines(entries) };
}

/** Entries sorted by key (each keeps its own lines in order: a table's columns by position). */
function sortedLines(entries: { key: string; lines: string[] }[]): string[] {
  return entries.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)).flatMap((e) => e.lines);
}

/** The lines of a snapshot file but its # comments. */
const contentLines = (text: string) => text.split(/\r?\n/).filter((l) => l !== '' && !l.startsWith('#'));

/** A line diff (longest common subsequence): the lines only in the snapshot (-) and only now (+), in order. */
function lineDiff(before: string[], after: string[]): string[] {
  const n = before.length;
  const m = after.length;
  const lcs = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--) lcs[i][j] = before[i] === after[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && before[i] === after[j]) {
      i++;
      j++;
    } else if (i < n && (j === m || lcs[i + 1][j] >= lcs[i][j + 1])) out.push(`- ${before[i++]}`);
    else out.push(`+ ${after[j++]}`);
  }
  return out;
}

/**
 * Where each changed line changed: a line of the snapshot and a line of now that name the same
 * thing (the text before `: `), with the text around the first place they differ. Definitions
 * are long lines; this points into them.
 */
function whereChanged(diff: string[]): string[] {
  const name = (line: string) => line.slice(2, line.indexOf(': ') === -1 ? undefined : line.indexOf(': ')).trim();
  const now = new Map(diff.filter((l) => l.startsWith('+ ')).map((l) => [name(l), l.slice(2)]));
  const out: string[] = [];
  for (const line of diff.filter((l) => l.startsWith('- '))) {
    const was = line.slice(2);
    const is = now.get(name(line));
    if (is === undefined) continue;
    let at = 0;
    while (at < was.length && was[at] === is[at]) at++;
    const around = (text: string) => `${at > 40 ? '...' : ''}${text.slice(Math.max(0, at - 40), at + 40)}${at + 40 < text.length ? '...' : ''}`;
    out.push(`  ${name(line)}, from character ${at + 1}:`, `    was ${around(was)}`, `    now ${around(is)}`);
  }
  return out.length ? ['', 'Where:', ...out] : [];
}

async function check(kind: DbKind, take: (db: Kysely<any>) => Promise<Taken>, t: TestContext) {
  const { database, cleanup } = await freshDatabase(kind);
  let taken: Taken;
  try {
    taken = await take(database as Kysely<any>);
  } finally {
    await cleanup();
  }
  if ('skip' in taken) {
    t.skip(taken.skip);
    return;
  }
  const file = snapshotFile(kind);
  const rel = path.relative(process.cwd(), file);
  if (UPDATE) {
    const text = [
      `# The schema a fresh ${kind === 'sqlite' ? 'SQLite' : 'PostgreSQL'} database gets, ${taken.header}.`,
      '# Held by src/db/schema-snapshot.test.ts; written by it, not by hand (see its header): a change here comes with a new migration.',
      ...taken.lines,
      '',
    ].join('\n');
    fs.writeFileSync(file, text);
    t.diagnostic(`wrote ${rel} (${taken.lines.length} lines)`);
    return;
  }
  assert.ok(fs.existsSync(file), `${rel} is missing: write it with ${REGENERATE}`);
  const committedText = fs.readFileSync(file, 'utf8');
  const diff = lineDiff(contentLines(committedText), taken.lines);
  if (diff.length === 0) return;
  const committedVersion = /taken on [^,]*?(?=\.$)/m.exec(committedText)?.[0];
  const versionNote =
    committedVersion !== taken.header
      ? `\nNote: the snapshot was ${committedVersion ?? 'taken on an unknown version'}, this run is ${taken.header}: the engine may word its definitions differently.`
      : '';
  assert.fail(
    [
      `The schema a fresh ${kind} database gets is not the one in ${rel} (- snapshot, + now):`,
      ...diff,
      ...whereChanged(diff),
      '',
      'A schema change reaches existing databases only through a new migration: a shipped migration is never edited, and src/db/schema/',
      'feeds the initial migration, so editing it changes fresh databases only. If the change is intended, add a new migration in',
      `src/db/migrations/ (listed in migrate.ts and checksums.json) that makes it, then regenerate the snapshots: ${REGENERATE}${versionNote}`,
    ].join('\n'),
  );
}

test('a fresh database gets the schema in the committed snapshot [sqlite]', (t) => check('sqlite', sqliteSnapshot, t));

if (process.env.TEST_DATABASE_URL) {
  test('a fresh database gets the schema in the committed snapshot [postgres]', (t) => check('postgres', postgresSnapshot, t));
} else {
  test('a fresh database gets the schema in the committed snapshot [postgres]', { skip: 'TEST_DATABASE_URL is not set' }, () => {});
}
