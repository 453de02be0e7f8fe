import { after, before, describe, test } from 'node:test';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { buildApp, type App, type AppOptions } from '../src/app.ts';
import { testConfig, type Config } from '../src/config.ts';
import { dropPostgresSchema, openDatabase, type Database } from '../src/db/database.ts';
import type { Deps } from '../src/core/deps.ts';
import { createPostsService, type PostsService } from '../src/modules/posts/posts.service.ts';
import type { PostListQuery } from '../src/modules/posts/posts.schemas.ts';
import type { PostList } from '../src/modules/posts/posts.schemas.ts';
import type { Static } from 'typebox';
import { CompiledQuery, sql } from 'kysely';
import { declareFleetFile, fleetLabel, fleetShape, procsMode, startFleet, type Fleet } from './fleet.ts';
import { startProcs, type Procs } from './procs.ts';
import { procsUnfit } from './procs-config.ts';
import { SharedClock, TestClock } from './clocks.ts';

export { TestClock };

export type DbKind = 'sqlite' | 'postgres';

/** The engines every database suite runs on: SQLite always, PostgreSQL when TEST_DATABASE_URL is set. */
export function databaseKinds(): DbKind[] {
  return process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
}

/**
 * A fresh, empty database of one kind: a temp SQLite file, or a PostgreSQL schema of its own.
 * `lastMigration`: migrated only that far, as an older version left it.
 */
export async function freshDatabase(
  kind: DbKind,
  { lastMigration }: { lastMigration?: string } = {},
): Promise<{ database: Database; dataDir: string; schema?: string; cleanup(): Promise<void> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'imageboard-test-'));
  if (kind === 'sqlite') {
    const database = await openDatabase({ url: '', dataDir, lastMigration });
    return {
      database,
      dataDir,
      cleanup: async () => {
        await database.close();
        fs.rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  const url = process.env.TEST_DATABASE_URL!;
  const schema = `t_${process.pid}_${randomBytes(4).toString('hex')}`;
  const database = await openDatabase({ url, dataDir, schema, lastMigration });
  return {
    database,
    dataDir,
    schema,
    cleanup: async () => {
      await database.close();
      await dropPostgresSchema(url, schema);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface Ctx {
  kind: DbKind;
  database: Database;
  app: App;
  clock: TestClock;
  config: Config;
  /** The DATA_DIR of the app (in fleet mode: of the first instance). */
  dataDir: string;
  /** Every instance's DATA_DIR: [dataDir], or one per instance in fleet mode. */
  dataDirs: string[];
  /** The fleet behind ctx.app in fleet mode (TEST_FLEET), else null. */
  fleet: Fleet | null;
  /** The server processes behind ctx.app in procs mode (TEST_FLEET=procs), else null. */
  procs: Procs | null;
}

/**
 * A suite whose behaviour depends on several instances of the board, and why: what an instance
 * keeps for itself and must catch up on when another one writes (in-memory sets and caches, its
 * DATA_DIR, its job runner), or what instances share and must agree on (sessions, counters in
 * Redis, media in a bucket, jobs to claim). Such a suite runs in the fleet modes too
 * (TEST_FLEET=2x2 and procs: docs/architecture.md, "Tests in fleet mode"); the others run in
 * `npm test` only. `fleet` is a string literal: scripts/test.mjs picks the files by it, without
 * loading them, and prints it.
 */
export interface FleetSuite {
  title: string;
  fleet: string;
}

/**
 * Declares a suite once per database engine. `body` registers tests (and may register its own
 * before() to load fixtures); ctx fields are filled before any test runs. In the fleet modes only
 * a FleetSuite is declared, once, on PostgreSQL behind the fleet.
 */
export function eachDatabase(
  head: string | FleetSuite,
  body: (ctx: Ctx) => void,
  configOverrides: Partial<Config> = {},
  appOptions: Omit<AppOptions, 'database' | 'clock'> = {},
): void {
  const { title, fleet } = typeof head === 'string' ? { title: head, fleet: null } : head;
  if (fleet !== null && !fleet.trim()) throw new Error(`eachDatabase("${title}"): say why the suite depends on several instances, or give the title alone`);
  // The pass that cannot run is counted as skipped in the summary, not silently left out.
  if (!process.env.TEST_DATABASE_URL) test(`${title} [postgres]`, { skip: 'TEST_DATABASE_URL is not set' }, () => {});
  const shape = fleetShape();
  const procs = procsMode();
  if ((shape || procs) && fleet === null) {
    console.log(`not run in fleet mode: suite "${title}": no FleetSuite, nothing it tests depends on several instances (npm test runs it)`);
    return;
  }
  // The SQLite pass is not declared at all: scripts/test.mjs says so once, and `npm test` runs it.
  if (shape || procs) declareFleetFile();
  const label = procs ? ' procs' : shape ? ` fleet ${fleetLabel(shape)}` : '';
  const unfit = procs && procsUnfit(testConfig({ rateLimits: false, ...configOverrides }), appOptions);
  if (unfit) {
    console.log(`not run in procs mode: suite "${title}": ${unfit}`);
    return;
  }
  for (const kind of shape || procs ? (['postgres'] as const) : databaseKinds()) {
    describe(`${title} [${kind}${label}]`, () => {
      const ctx = { kind, fleet: null, procs: null } as Ctx;
      let cleanup: () => Promise<void>;
      before(async () => {
        const fresh = await freshDatabase(kind);
        cleanup = fresh.cleanup;
        ctx.database = fresh.database;
        ctx.dataDir = fresh.dataDir;
        ctx.dataDirs = [fresh.dataDir];
        ctx.clock = procs ? new SharedClock(path.join(fresh.dataDir, 'clock')) : new TestClock();
        // Functional suites send far more than 50 requests a minute from one address; the rate-limit
        // suites turn limits back on (rateLimits: true) and test them on their own.
        ctx.config = testConfig({ dataDir: fresh.dataDir, rateLimits: false, ...configOverrides });
        if (procs) {
          ctx.procs = await startProcs({
            url: process.env.TEST_DATABASE_URL!,
            schema: fresh.schema!,
            config: ctx.config,
            clock: ctx.clock as SharedClock,
            database: fresh.database,
          });
          ctx.app = ctx.procs.app;
          // Settings are read at start: a test changing one afterwards would not reach the processes.
          [ctx.config, ctx.dataDir, ctx.dataDirs] = [ctx.procs.app.deps.config, ctx.procs.dataDirs[0], ctx.procs.dataDirs];
        } else if (shape) {
          const fleet = await startFleet(shape, {
            url: process.env.TEST_DATABASE_URL!,
            schema: fresh.schema!,
            config: ctx.config,
            appOptions: { ...appOptions, clock: ctx.clock },
          });
          ctx.fleet = fleet;
          ctx.app = fleet.app;
          // What the test reads and writes behind the apps' backs is what the first instance sees.
          [ctx.config, ctx.dataDir, ctx.dataDirs] = [fleet.config, fleet.dataDirs[0], fleet.dataDirs];
        } else {
          ctx.app = await buildApp(ctx.config, { ...appOptions, database: fresh.database, clock: ctx.clock });
        }
        await ctx.app.ready();
      });
      after(async () => {
        if (ctx.procs) await ctx.procs.close();
        else if (ctx.fleet) await ctx.fleet.close();
        else await ctx.app?.close();
        await cleanup?.();
      });
      body(ctx);
    });
  }
}

/**
 * Another instance of the board on the suite's database, with settings of its own, as another
 * machine behind the load balancer would be: an app of its own; in procs mode, two more server
 * processes when settings differ, else ctx.app itself (its requests go to other processes in
 * turn already). Close it when done: closing ctx.app so is left to the suite.
 */
export async function anotherInstance(ctx: Ctx, changes: Partial<Config> = {}): Promise<App> {
  if (!ctx.procs) return buildApp({ ...ctx.config, ...changes }, { database: ctx.database, clock: ctx.clock });
  if (Object.keys(changes).length > 0) return (await ctx.procs.another(changes)).app;
  return new Proxy(ctx.app, { get: (target, prop) => (prop === 'close' ? async () => {} : Reflect.get(target, prop)) });
}

/** A port the board answers on: the app's own, opened now (in fleet mode the first app's); in procs mode the proxy's. */
export async function listeningPort(ctx: Ctx): Promise<number> {
  if (ctx.procs) return ctx.procs.port;
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  return (ctx.app.server.address() as AddressInfo).port;
}

/**
 * Changes settings as an operator would on every instance: at once in this process; in procs
 * mode by starting the server processes again with them (each keeps its DATA_DIR).
 */
export async function changeSettings(ctx: Ctx, changes: Partial<Config>): Promise<void> {
  if (ctx.procs) {
    const config = ctx.config as unknown as Record<string, unknown>;
    if (Object.entries(changes).every(([k, v]) => isDeepStrictEqual(config[k], v))) return;
    await ctx.procs.restart(changes);
    ctx.config = ctx.app.deps.config;
  } else Object.assign(ctx.config, changes);
}

/**
 * Whether a media file the API links (`/media/originals/...`) is stored, asked of the app's media
 * store: DATA_DIR/media normally, the bucket in fleet mode.
 */
export const mediaStored = (ctx: Ctx, url: string): Promise<boolean> => ctx.app.deps.media.exists(url.replace(/^\/media\//, ''));

/** Every stored media file (relative path), sorted: DATA_DIR/media normally, the bucket in fleet mode. */
export async function storedMedia(ctx: Ctx): Promise<string[]> {
  const out: string[] = [];
  for await (const f of ctx.app.deps.media.list()) out.push(f.rel);
  return out.sort();
}

/** Every file under DATA_DIR/tmp, of every instance in fleet mode (an upload may have gone to any), sorted. */
export function tmpFiles(ctx: Ctx): string[] {
  return ctx.dataDirs
    .flatMap((dir) => {
      const root = path.join(dir, 'tmp');
      if (!fs.existsSync(root)) return [];
      return (fs.readdirSync(root, { recursive: true }) as string[]).filter((f) => fs.statSync(path.join(root, f)).isFile());
    })
    .sort();
}

/** A stored media file's bytes (a path as the posts table keeps it), read through the app's media store. */
export async function readMedia(ctx: Ctx, rel: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await ctx.app.deps.media.read(rel)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * A test that cannot run behind a fleet (it works on one app's DATA_DIR on disk): in fleet mode it
 * is left out with its name and reason printed (the normal run has it), never silently. Keep the
 * list short.
 */
export function testUnlessFleet(name: string, why: string, fn: () => Promise<void>): void {
  if (fleetShape() || procsMode()) console.log(`not run in fleet mode: "${name}": ${why}`);
  else test(name, fn);
}

/**
 * A test that cannot run against real server processes (it changes a setting while the app runs,
 * or reaches into the app's deps): in procs mode it is left out with its name
 * and reason printed (fleet mode and the normal run have it). A file that declares its tests so
 * is run in procs mode even though it uses what procs mode lacks (scripts/test.mjs).
 */
export function testUnlessProcs(name: string, why: string, fn: () => Promise<void>): void {
  if (procsMode()) console.log(`not run in procs mode: "${name}": ${why}`);
  else test(name, fn);
}

/** GET a JSON endpoint through the real app. */
export async function getJson(app: App, url: string, headers: Record<string, string> = {}) {
  const res = await app.inject({ method: 'GET', url, headers });
  return { status: res.statusCode, headers: res.headers, body: res.json() as any };
}

/** GET /api/posts through a posts service (it writes JSON text), parsed. The service keeps its in-memory indexes from call to call. */
export async function listPage(service: PostsService, q: PostListQuery): Promise<PostListBody> {
  return JSON.parse(await service.list(q)) as PostListBody;
}

/** A posts service of its own (indexes read afresh), or one that answers every list by SQL alone: the reference the in-memory strategies are held to. */
export const postsService = (deps: Deps, strategy: 'auto' | 'sql' = 'auto'): PostsService =>
  createPostsService({ ...deps, config: { ...deps.config, search: { ...deps.config.search, strategy } } });
export type PostListBody = Static<typeof PostList>;

/**
 * How many statements `db` ran while `run` ran: every one, reads that SQLite runs outside Kysely
 * included (Database.rowsOf sends them through a wrapped executeQuery).
 */
export async function statementsDuring(db: Database, run: () => Promise<unknown>): Promise<number> {
  const own = Object.hasOwn(db, 'executeQuery');
  const execute = db.executeQuery;
  let statements = 0;
  db.executeQuery = function (this: Database, ...args: Parameters<typeof execute>) {
    statements++;
    return execute.apply(this, args);
  } as typeof execute;
  try {
    await run();
  } finally {
    if (own) db.executeQuery = execute;
    else delete (db as { executeQuery?: unknown }).executeQuery;
  }
  return statements;
}

/**
 * A view of a SQLite database that records every statement it compiles (to explain the plans a
 * service chose): run the service on `spy`, then `plan(q)` gives SQLite's query plan of one.
 */
export function capturingQueries(db: Database) {
  const seen: CompiledQuery[] = [];
  const spy = db.withPlugin({
    transformQuery: (args) => {
      seen.push(db.getExecutor().compileQuery(args.node, args.queryId));
      return args.node;
    },
    transformResult: async (args) => args.result,
  });
  const plan = async (q: CompiledQuery) =>
    (await db.executeQuery<{ detail: string }>(CompiledQuery.raw(`EXPLAIN QUERY PLAN ${q.sql}`, [...q.parameters]))).rows.map((r) => r.detail).join(' | ');
  return { spy, seen, plan };
}

/** DATA_DIR and DATABASE_URL naming this test's database, as an operator's shell would. */
export async function commandEnv(ctx: Ctx): Promise<Record<string, string>> {
  if (ctx.kind === 'sqlite') return { DATA_DIR: ctx.dataDir, DATABASE_URL: '' };
  // Fleet mode: the media are in the suite's bucket.
  const s3 = ctx.config?.s3;
  const media: Record<string, string> =
    ctx.config?.mediaStore === 's3'
      ? {
          MEDIA_STORE: 's3',
          S3_ENDPOINT: s3.endpoint,
          S3_BUCKET: s3.bucket,
          S3_REGION: s3.region,
          S3_ACCESS_KEY_ID: s3.accessKeyId,
          S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
        }
      : {};
  const schema = (await sql<{ s: string }>`SELECT current_schema() AS s`.execute(ctx.database)).rows[0].s;
  const url = new URL(process.env.TEST_DATABASE_URL!);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return { DATA_DIR: ctx.dataDir, DATABASE_URL: url.toString(), ...media };
}
