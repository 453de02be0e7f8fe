import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { PostgresDialect, sql } from 'kysely';
import { Database, openDatabase } from '../src/db/database.ts';
import { dropTitleWordTriggers, fillTitleWords } from '../src/db/schema/title-words.ts';
import { WorkerSqliteDialect } from './sqlite-worker-dialect.ts';
import { compactSearchIndex, ensureStatistics } from '../src/db/statistics.ts';
import { seedDatabase, type SeedSummary } from '../src/seed/generate.ts';
import { standInContent } from '../src/seed/posts.ts';
import { OneClientPool, setAsideForLoad } from './pg-copy.ts';

/**
 * The read dataset: built once per parameter set with the project's own seeder (no media files),
 * then reused while a marker says it is complete. SQLite lives in a directory under bench/data/,
 * PostgreSQL in a schema of its own; both are named after the parameters.
 */

const DAY = 86_400_000;
/**
 * Bumped when the dataset's shape changes, so old ones are not reused. A new migration alone needs
 * no bump: a reused dataset is migrated, and brought to what a new one holds, below (prepareDataset).
 */
const DATASET_VERSION = 3;
/**
 * Posts end at the moment the dataset was made, and the server's clock is the real one, so
 * windows such as "trending this week" empty out as a dataset ages: older ones are rebuilt.
 */
export const MAX_AGE_DAYS = 3;
const MARKER = 'complete.json';

export interface DatasetParams {
  posts: number;
  users: number;
  tags: number;
  tagsPerPost: number;
  seed: number;
  /** Epoch ms: posts are spread over the two years before it. */
  until: number;
}

export interface Dataset {
  kind: 'sqlite' | 'postgres';
  name: string;
  params: DatasetParams;
  /** DATA_DIR for the server (SQLite file inside; an empty media dir for PostgreSQL). */
  dataDir: string;
  /** DATABASE_URL for the server: empty for SQLite; for PostgreSQL it selects the schema. */
  databaseUrl: string;
  schema?: string;
  reused: boolean;
  /** Seconds the generation took (from the marker when reused). */
  generationSeconds: number;
  /** CPU seconds the generating process used (user + system): on a busy machine, the steadier figure. */
  generationCpuSeconds: number | null;
  summary: SeedSummary;
  /** Days between `until` and now. */
  ageDays: number;
}

export interface DatasetOptions {
  posts: number;
  seed: number;
  tagsPerPost: number;
  /** Where SQLite datasets live (bench/data). */
  dataRoot: string;
  /** postgres://... to build the dataset on PostgreSQL instead. */
  databaseUrl: string;
  log: (line: string) => void;
  now?: number;
}

interface Marker {
  version: number;
  params: DatasetParams;
  generationSeconds: number;
  cpuSeconds?: number;
  summary: SeedSummary;
  finishedAt: string;
}

/** The issue's proportions: a million posts give 20,000 users, 50,000 tags, 5M likes, 1M comments, 10,000 pools. */
export function datasetParams(o: { posts: number; seed: number; tagsPerPost: number }, until: number): DatasetParams {
  return {
    posts: o.posts,
    users: Math.max(10, Math.floor(o.posts / 50)),
    tags: Math.min(50_000, Math.max(50, Math.floor(o.posts / 20))),
    tagsPerPost: o.tagsPerPost,
    seed: o.seed,
    until,
  };
}

const family = (p: { posts: number; seed: number; tagsPerPost: number }) => `p${p.posts}_s${p.seed}_t${p.tagsPerPost}_v${DATASET_VERSION}`;
const stamp = (until: number) => new Date(until).toISOString().slice(0, 16).replace(/[-:]/g, '').replace('T', '_');
const cpuSince = (start: NodeJS.CpuUsage) => {
  const u = process.cpuUsage(start);
  return (u.user + u.system) / 1e6;
};

/** What a finished dataset records about itself, from when (`started`, `cpu`) its generation began. */
const markerOf = (params: DatasetParams, summary: SeedSummary, started: number, cpu: NodeJS.CpuUsage): Marker => ({
  version: DATASET_VERSION,
  params,
  summary,
  generationSeconds: (performance.now() - started) / 1000,
  cpuSeconds: cpuSince(cpu),
  finishedAt: new Date().toISOString(),
});
const sameParams = (a: DatasetParams, b: DatasetParams) => JSON.stringify(a) === JSON.stringify(b);

export async function prepareDataset(o: DatasetOptions): Promise<Dataset> {
  const now = o.now ?? Date.now();
  const d = o.databaseUrl ? await preparePostgres(o, now) : await prepareSqlite(o, now);
  if (d.reused) {
    // A dataset made before a newer migration is brought up to date here, untimed, rather than
    // inside the server's start-up.
    const started = performance.now();
    const db = await openDatabase({ url: o.databaseUrl, dataDir: d.dataDir, schema: d.schema });
    try {
      const filled = await fillStandInMd5(db, d.params.seed);
      if (filled > 0) o.log(`dataset: ${filled.toLocaleString('en')} posts given the md5 a new dataset has`);
    } finally {
      await db.close();
    }
    const seconds = (performance.now() - started) / 1000;
    if (seconds > 1) o.log(`dataset: migrated to the latest schema in ${seconds.toFixed(1)} s`);
  }
  return d;
}

/**
 * A dataset made before posts had md5 (migration 002) gets the stand-ins the seeder now writes for
 * posts without files (same seed and id, same md5). Left empty, the server's fill would try to read
 * every post's missing original after each start, beside the measured requests. Every post is
 * rewritten, so on PostgreSQL the table and its indexes are rewritten compact again and vacuumed
 * (the visibility map index-only scans need), as a new dataset is. Returns how many posts it filled.
 */
export async function fillStandInMd5(db: Database, seed: number): Promise<number> {
  let filled = 0;
  for (;;) {
    const ids = (await db.selectFrom('posts').select('id').where('md5', 'is', null).orderBy('id').limit(1000).execute()).map((r) => r.id);
    if (ids.length === 0) break;
    const md5 = (id: number) => createHash('md5').update(standInContent(seed, id)).digest('hex');
    const cases = sql.join(
      ids.map((id) => sql`WHEN ${id} THEN ${md5(id)}`),
      sql` `,
    );
    await db
      .updateTable('posts')
      .set({ md5: sql<string>`CASE id ${cases} END` })
      .where('id', 'in', ids)
      .execute();
    filled += ids.length;
  }
  if (filled > 0 && db.engine === 'postgres') {
    await sql`VACUUM FULL posts`.execute(db);
    await sql`VACUUM ANALYZE posts`.execute(db);
  }
  return filled;
}

function progress(log: (line: string) => void) {
  const last = new Map<string, number>();
  const started = performance.now();
  return (phase: string, done: number, total: number) => {
    const tenth = total > 0 ? Math.floor((done * 10) / total) : 10;
    if (last.get(phase) === tenth) return;
    last.set(phase, tenth);
    log(`  seed ${phase.padEnd(10)} ${done.toLocaleString('en')}/${total.toLocaleString('en')} ${((performance.now() - started) / 1000).toFixed(1)}s`);
  };
}

function describe(d: Dataset, log: (line: string) => void): Dataset {
  const how = d.reused ? 'reusing' : 'built';
  log(
    `dataset: ${how} ${d.kind} ${d.name} (${d.summary.posts.toLocaleString('en')} posts, generated in ${d.generationSeconds.toFixed(1)} s, ${d.ageDays.toFixed(1)} days old)`,
  );
  return d;
}

// ---------------------------------------------------------------- SQLite

async function prepareSqlite(o: DatasetOptions, now: number): Promise<Dataset> {
  fs.mkdirSync(o.dataRoot, { recursive: true });
  const prefix = `sqlite_${family(o)}_`;
  const found = fs
    .readdirSync(o.dataRoot)
    .filter((name) => name.startsWith(prefix) && !name.endsWith('.partial'))
    .map((name) => ({ name, marker: readMarker(path.join(o.dataRoot, name, MARKER)) }))
    .filter((c): c is { name: string; marker: Marker } => c.marker !== null)
    .sort((a, b) => b.marker.params.until - a.marker.params.until);
  const fresh = found.find((c) => now - c.marker.params.until <= MAX_AGE_DAYS * DAY && sameParams(c.marker.params, datasetParams(o, c.marker.params.until)));
  if (fresh) return describe(sqliteDataset(o.dataRoot, fresh.name, fresh.marker, true, now), o.log);

  // Stale or unfinished datasets of this family only take disk space.
  for (const name of fs.readdirSync(o.dataRoot).filter((n) => n.startsWith(prefix))) {
    o.log(`dataset: removing stale ${name}`);
    fs.rmSync(path.join(o.dataRoot, name), { recursive: true, force: true });
  }
  const params = datasetParams(o, Math.floor(now / 60_000) * 60_000);
  const name = `${prefix}${stamp(params.until)}`;
  const partial = path.join(o.dataRoot, `${name}.partial`);
  fs.mkdirSync(path.join(partial, 'media'), { recursive: true });
  o.log(
    `dataset: generating ${name} on SQLite (${params.posts.toLocaleString('en')} posts, ${params.tags.toLocaleString('en')} tags, ${params.users.toLocaleString('en')} users)`,
  );
  const started = performance.now();
  const cpu = process.cpuUsage();
  const summary = await seedSqlite(partial, params, o.log);
  const marker = markerOf(params, summary, started, cpu);
  fs.writeFileSync(path.join(partial, MARKER), `${JSON.stringify(marker, null, 2)}\n`);
  fs.renameSync(partial, path.join(o.dataRoot, name));
  return describe(sqliteDataset(o.dataRoot, name, marker, false, now), o.log);
}

function readMarker(file: string): Marker | null {
  try {
    const m = JSON.parse(fs.readFileSync(file, 'utf8')) as Marker;
    return m.version === DATASET_VERSION ? m : null;
  } catch {
    return null;
  }
}

function sqliteDataset(root: string, name: string, m: Marker, reused: boolean, now: number): Dataset {
  return {
    kind: 'sqlite',
    name,
    params: m.params,
    dataDir: path.join(root, name),
    databaseUrl: '',
    reused,
    generationSeconds: m.generationSeconds,
    generationCpuSeconds: m.cpuSeconds ?? null,
    summary: m.summary,
    ageDays: (now - m.params.until) / DAY,
  };
}

/**
 * Migrates with the app's own code, then seeds over a connection tuned for one bulk load
 * (no journal, no fsync, a large cache, secondary indexes built after the rows are in).
 * The server later opens the file in WAL mode as usual.
 */
/** The bulk load's settings: no rollback journal (better-sqlite3's defensive mode refuses OFF without a word: unsafeMode), no syncs, one writer, a large cache. Each with the answer it must get. */
const BULK_PRAGMAS: [string, string?][] = [
  ['journal_mode = DELETE', 'delete'],
  ['journal_mode = OFF', 'off'],
  ['synchronous = OFF'],
  ['locking_mode = EXCLUSIVE', 'exclusive'],
  ['cache_size = -1000000'],
  ['temp_store = MEMORY'],
  ['foreign_keys = OFF'],
];

/** A connection for the bulk load's steps on this thread. */
function bulkConnection(file: string): SQLite.Database {
  const conn = new SQLite(file);
  // Kept in WAL, one transaction of a ten-million-post board's activity grew a log as large as the database.
  conn.unsafeMode(true);
  for (const [pragma, want] of BULK_PRAGMAS) {
    const got = conn.pragma(pragma, { simple: true });
    if (want !== undefined && String(got).toLowerCase() !== want) throw new Error(`SQLite refused ${pragma} for the bulk load (got ${got})`);
  }
  return conn;
}

async function seedSqlite(dir: string, params: DatasetParams, log: (line: string) => void): Promise<SeedSummary> {
  const migrated = await openDatabase({ url: '', dataDir: dir });
  await migrated.close();
  const file = path.join(dir, 'imageboard.db');
  const conn = bulkConnection(file);
  const indexes = conn.prepare("select name, sql from sqlite_master where type = 'index' and sql is not null").all() as { name: string; sql: string }[];
  for (const ix of indexes) conn.exec(`drop index "${ix.name}"`);
  // The title index is built once from the finished table: fed a post at a time, it ends in
  // thousands of segments whose final merge took longer than the whole seed at ten million.
  const titleIndex = conn.prepare("select name, sql from sqlite_master where type = 'trigger' and tbl_name = 'posts' and sql like '%posts_fts%'").all() as {
    name: string;
    sql: string;
  }[];
  for (const t of titleIndex) conn.exec(`drop trigger "${t.name}"`);
  conn.close();
  // The rows are inserted on a worker thread while this one makes the next ones
  // (sqlite-worker-dialect.ts); the steps after run there too, on the connection whose cache
  // holds the pages just written.
  const db = new Database({ dialect: new WorkerSqliteDialect(file, BULK_PRAGMAS) }, 'sqlite');
  try {
    // Title words are written after the posts, sorted, instead of by triggers post by post.
    await dropTitleWordTriggers(db);
    const summary = await seedDatabase(db, seedOptions(params), progress(log));
    let t = performance.now();
    const took: [string, number][] = [];
    for (const ix of indexes) {
      const started = performance.now();
      await sql.raw(ix.sql).execute(db);
      took.push([ix.name, (performance.now() - started) / 1000]);
    }
    const slowest = took.sort((a, b) => b[1] - a[1]).slice(0, 5);
    log(
      `  indexes    ${indexes.length} rebuilt in ${((performance.now() - t) / 1000).toFixed(1)}s (slowest: ${slowest.map(([n, s]) => `${n} ${s.toFixed(0)}s`).join(', ')})`,
    );
    t = performance.now();
    await fillTitleWords(db);
    log(`  title words written in ${((performance.now() - t) / 1000).toFixed(1)}s`);
    t = performance.now();
    await sql`INSERT INTO posts_fts(posts_fts) VALUES ('rebuild')`.execute(db);
    for (const tr of titleIndex) await sql.raw(tr.sql).execute(db);
    await compactSearchIndex(db);
    log(`  title index built in ${((performance.now() - t) / 1000).toFixed(1)}s`);
    // The statistics the server would otherwise gather at its first start, inside its start-up time.
    t = performance.now();
    await ensureStatistics(db);
    log(`  statistics gathered in ${((performance.now() - t) / 1000).toFixed(1)}s`);
    await sql`PRAGMA journal_mode = WAL`.execute(db);
    return summary;
  } finally {
    await db.destroy();
  }
}

function seedOptions(p: DatasetParams) {
  return { posts: p.posts, users: p.users, tags: p.tags, tagsPerPost: p.tagsPerPost, seed: p.seed, until: p.until, mediaDir: null };
}

// ---------------------------------------------------------------- PostgreSQL

/** A URL whose connections use `schema` (pg reads `options` from the query string). */
export function urlWithSchema(url: string, schema: string): string {
  const u = new URL(url);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return u.toString();
}

async function preparePostgres(o: DatasetOptions, now: number): Promise<Dataset> {
  const prefix = `bench_${family(o)}_`;
  const admin = new pg.Client({ connectionString: o.databaseUrl });
  await admin.connect();
  try {
    const schemas = (await admin.query<{ s: string }>('select nspname as s from pg_namespace where nspname like $1', [`${prefix}%`])).rows.map((r) => r.s);
    let fresh: { schema: string; marker: Marker } | undefined;
    for (const schema of schemas.sort().reverse()) {
      const marker = await pgMarker(admin, schema);
      if (marker && !fresh && now - marker.params.until <= MAX_AGE_DAYS * DAY && sameParams(marker.params, datasetParams(o, marker.params.until))) {
        fresh = { schema, marker };
      }
    }
    if (fresh) return describe(pgDataset(o, fresh.schema, fresh.marker, true, now), o.log);
    for (const schema of schemas) {
      o.log(`dataset: dropping stale schema ${schema}`);
      await admin.query(`drop schema if exists ${schema} cascade`);
    }
    const params = datasetParams(o, Math.floor(now / 60_000) * 60_000);
    const schema = `${prefix}${stamp(params.until)}`.toLowerCase();
    o.log(`dataset: generating schema ${schema} on PostgreSQL (${params.posts.toLocaleString('en')} posts)`);
    const started = performance.now();
    const cpu = process.cpuUsage();
    const summary = await seedPostgres(o.databaseUrl, schema, params, o.log);
    // What autovacuum would have done by the time a real board is this big: statistics, and the
    // visibility map without which every index-only scan reads the table too.
    for (const { t } of (await admin.query<{ t: string }>('select tablename as t from pg_tables where schemaname = $1', [schema])).rows) {
      await admin.query(`vacuum analyze ${schema}."${t}"`);
    }
    const marker = markerOf(params, summary, started, cpu);
    await admin.query(`create table ${schema}.bench_marker (marker text not null)`);
    await admin.query(`insert into ${schema}.bench_marker values ($1)`, [JSON.stringify(marker)]);
    return describe(pgDataset(o, schema, marker, false, now), o.log);
  } finally {
    await admin.end();
  }
}

async function pgMarker(admin: pg.Client, schema: string): Promise<Marker | null> {
  try {
    const rows = (await admin.query<{ marker: string }>(`select marker from ${schema}.bench_marker`)).rows;
    const m = rows[0] ? (JSON.parse(rows[0].marker) as Marker) : null;
    return m?.version === DATASET_VERSION ? m : null;
  } catch {
    return null;
  }
}

function pgDataset(o: DatasetOptions, schema: string, m: Marker, reused: boolean, now: number): Dataset {
  const dataDir = path.join(o.dataRoot, `pg_${schema}`);
  fs.mkdirSync(path.join(dataDir, 'media'), { recursive: true });
  return {
    kind: 'postgres',
    name: schema,
    schema,
    params: m.params,
    dataDir,
    databaseUrl: urlWithSchema(o.databaseUrl, schema),
    reused,
    generationSeconds: m.generationSeconds,
    generationCpuSeconds: m.cpuSeconds ?? null,
    summary: m.summary,
    ageDays: (now - m.params.until) / DAY,
  };
}

/**
 * Rows go in with COPY on the one connection the seeder's transactions use, with foreign keys and
 * secondary indexes put back after the load (bench/pg-copy.ts); the rows are those INSERTs write.
 */
async function seedPostgres(url: string, schema: string, params: DatasetParams, log: (line: string) => void): Promise<SeedSummary> {
  const migrated = await openDatabase({ url, dataDir: '', schema });
  await migrated.close();
  const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema} -c synchronous_commit=off` });
  await client.connect();
  const pool = new OneClientPool(client);
  const db = new Database({ dialect: new PostgresDialect({ pool }) }, 'postgres');
  try {
    const restore = await setAsideForLoad(client, schema, log);
    const summary = await seedDatabase(db, seedOptions(params), progress(log), pool);
    await restore();
    return summary;
  } finally {
    await db.destroy();
    await pool.end();
  }
}

/** Bytes the dataset takes: the SQLite files, or every relation of the PostgreSQL schema. */
export async function datasetBytes(d: Dataset, adminUrl: string): Promise<number> {
  if (d.kind === 'sqlite') {
    return databaseFiles(d.dataDir).reduce((sum, f) => sum + fs.statSync(path.join(d.dataDir, f)).size, 0);
  }
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ n: string }>(
      `select coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint as n from pg_class c
       join pg_namespace n on n.oid = c.relnamespace where n.nspname = $1 and c.relkind in ('r', 'm')`,
      [d.schema],
    );
    return Number(rows[0].n);
  } finally {
    await admin.end();
  }
}

/**
 * A copy of a SQLite dataset in `dir` (its database files and an empty media directory), for a
 * run that writes: the dataset itself is reused by every later run, so none may change it.
 */
export function copySqliteDataset(d: Dataset, dir: string): Dataset {
  if (d.kind !== 'sqlite') throw new Error('only a SQLite dataset can be copied');
  fs.mkdirSync(path.join(dir, 'media'), { recursive: true });
  for (const f of databaseFiles(d.dataDir)) fs.copyFileSync(path.join(d.dataDir, f), path.join(dir, f), fs.constants.COPYFILE_FICLONE);
  return { ...d, dataDir: dir };
}

/** A SQLite dataset's database files (the database, and its WAL and index while they exist). */
export const databaseFiles = (dir: string) => fs.readdirSync(dir).filter((f) => f.startsWith('imageboard.db'));
