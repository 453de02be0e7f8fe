import type { Notices, StopListening } from './notices.ts';
import {
  Kysely,
  sql,
  type CompiledQuery,
  type Transaction,
  type Expression,
  type KyselyConfig,
  type KyselyPlugin,
  type RawBuilder,
  type SqlBool,
} from 'kysely';
import type { DB } from './types.ts';
import * as sqlText from './dialect.ts';

export { FIELD_SEPARATOR } from './dialect.ts';
import type { DialectName } from './dialect.ts';

/** Which engine a Database runs on: read inside src/db/ only (a test holds the rest of the code to that). */
export type Engine = DialectName;

/** A database object's connections: at most `max`, `inUse` lent out, `idle` open and free, `waiting` callers queued for one. */
export interface ConnectionUse {
  max: number;
  inUse: number;
  idle: number;
  waiting: number;
}

/** A connection to the board's tables, or a transaction on one: what a repository's statements run on. */
export type Db = Kysely<DB>;
/** A transaction a service opened (`db.transaction().execute(...)`) and hands to repositories. */
export type Tx = Transaction<DB>;

/**
 * The database the rest of the code gets: Kysely's query builder, plus the SQL that differs between
 * SQLite and PostgreSQL as methods, so no caller branches on the engine or threads it through its
 * signatures. The methods only build SQL (dialect.ts holds it, shared with the migrations, which get the
 * engine as a name), so inside a transaction call them on the outer object.
 */
export class Database extends Kysely<DB> {
  constructor(
    config: KyselyConfig,
    readonly engine: Engine,
    /** SQLite: runs a read at once when no transaction holds the connection (statement-cache.ts), else null. */
    private readonly readNow?: (text: string, parameters: readonly unknown[]) => unknown[] | null,
    /** SQLite in WAL mode: the mark of what is committed now (commit-mark.ts). */
    private readonly markNow?: () => Buffer | null,
    /** Who hears notify(): PostgreSQL's listeners on connections of their own, SQLite's serving threads (notices.ts). */
    private readonly notices?: Notices,
    /** How the connections are used now (the pool's counts; SQLite's one connection). */
    private readonly use?: () => ConnectionUse,
  ) {
    super(config);
  }

  /** The connections this object holds and who waits for one, for GET /metrics; null when it cannot tell. */
  connections(): ConnectionUse | null {
    return this.use?.() ?? null;
  }

  /**
   * Calls `heard` whenever any process, on any instance, says `name` with notify() (on SQLite: any
   * thread of this process, the only one that writes the file); null where nothing can be heard (a
   * file opened read-only). Only a wake-up: what was said while the listener was away is not heard again.
   */
  listen(name: string, heard: () => void): StopListening | null {
    return this.notices?.listen(name, heard) ?? null;
  }

  /** Wakes every listener of `name` in this board's schema (PostgreSQL's NOTIFY, sent on its commit), or of this file (SQLite's threads). */
  async notify(name: string): Promise<void> {
    if (this.engine !== 'postgres') return this.notices?.say?.(name);
    await sql`SELECT pg_notify(left(${name} || '_' || current_schema(), 63), '')`.execute(this);
  }

  /**
   * A mark of what has been committed, by any connection or process: two equal marks, nothing was
   * committed in between. Null where there is none (PostgreSQL, SQLite in memory, inside a
   * transaction). Take it before a read, so that what was read is at least as new as the mark.
   */
  commitMark(): Buffer | null {
    return this.markNow?.() ?? null;
  }

  /**
   * The rows of a compiled read, run at once where it can be (SQLite outside a transaction),
   * else through Kysely. Only for a Database whose executeQuery is its own: a test that wraps it
   * to see the statements sees these too.
   */
  async rowsOf<R>(query: CompiledQuery<R>): Promise<R[]> {
    const rows = this.readNow && !Object.hasOwn(this, 'executeQuery') ? this.readNow(query.sql, query.parameters) : null;
    return (rows as R[] | null) ?? (await this.executeQuery(query)).rows;
  }

  async close(): Promise<void> {
    await this.destroy();
  }

  /**
   * Kysely's withPlugin gives a plain Kysely; this one keeps the engine and its methods (tests spy
   * on the statements a function builds). Kysely keeps its state in a private field of the object
   * it makes, so giving that object this class's prototype is enough.
   */
  override withPlugin(plugin: KyselyPlugin): Database {
    const plain = super.withPlugin(plugin);
    return Object.assign(Object.setPrototypeOf(plain, Database.prototype) as Database, { engine: this.engine });
  }

  /**
   * SQLite's hint naming the index a table must be read through (`INDEXED BY`, written after the
   * table's name, with a space after it); nothing on PostgreSQL, which has no such hint.
   */
  indexedBy(index: string): RawBuilder<unknown> {
    return sql.raw(this.engine === 'sqlite' ? `INDEXED BY ${index} ` : '');
  }

  /**
   * `query` locking the rows it reads until the transaction ends: FOR UPDATE on PostgreSQL. SQLite
   * has no row locks and needs none (a write transaction holds the whole database).
   */
  lockRows<Q extends { forUpdate(): Q }>(query: Q): Q {
    return this.engine === 'postgres' ? query.forUpdate() : query;
  }

  /**
   * Takes the next post id from the posts' own sequence without inserting a post (a pending upload's
   * id, modules/approval/): no post inserted later gets it, and the post published under it later
   * is inserted with it. PostgreSQL: nextval of the identity's sequence. SQLite: posts' AUTOINCREMENT
   * numbers past both sqlite_sequence and the highest id, so the sequence row is moved on in the
   * caller's transaction (which holds the database).
   */
  async reservePostId(trx: Kysely<DB>): Promise<number> {
    if (this.engine === 'postgres') {
      const { rows } = await sql<{ id: string }>`SELECT nextval(pg_get_serial_sequence('posts', 'id')) AS id`.execute(trx);
      return Number(rows[0].id);
    }
    await sql`INSERT INTO sqlite_sequence (name, seq) SELECT 'posts', 0 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'posts')`.execute(trx);
    const { rows } = await sql<{ seq: number }>`UPDATE sqlite_sequence SET seq = max(seq, (SELECT coalesce(max(id), 0) FROM posts)) + 1
      WHERE name = 'posts' RETURNING seq`.execute(trx);
    return Number(rows[0].seq);
  }

  /**
   * Whether looking a post's other tags up by link (an EXISTS a tag) is cheap enough to answer a
   * filter of several tags from links alone: on SQLite; on PostgreSQL it costs tens of times more.
   */
  get linkLookupsAreCheap(): boolean {
    return this.engine === 'sqlite';
  }

  /**
   * Whether reads that arrive while others are out pay to be joined into one statement
   * (coalesce.ts): on PostgreSQL, where each statement is a round trip to another process (a
   * write and a wake-up on each side); SQLite runs its statements in this thread, one at a time.
   */
  get coalesces(): boolean {
    return this.engine === 'postgres';
  }

  /** Case-insensitive substring match; `needle` is matched literally (%, _ and \ escaped). */
  containsInsensitive(column: Expression<string>, needle: string): RawBuilder<boolean> {
    return sqlText.containsInsensitive(this.engine, column, needle);
  }

  /** Case-insensitive prefix match, same escaping as containsInsensitive. */
  startsWithInsensitive(column: Expression<string>, prefix: string): RawBuilder<boolean> {
    return sqlText.startsWithInsensitive(this.engine, column, prefix);
  }

  /** Case-insensitive match of the whole text, `*` standing for any run of characters (see globInsensitive in dialect.ts). */
  globInsensitive(column: Expression<string>, glob: string): RawBuilder<boolean> {
    return sqlText.globInsensitive(this.engine, column, glob);
  }

  /** Title contains `needle`, case-insensitively, matched literally (see titleContains in dialect.ts). */
  titleContains(id: Expression<number>, title: Expression<string>, needle: string): RawBuilder<boolean> {
    return sqlText.titleContains(this.engine, id, title, needle);
  }

  /** A column reference SQLite will not use an index for (see notIndexed in dialect.ts). */
  notIndexed(column: Expression<unknown>): RawBuilder<unknown> {
    return sqlText.notIndexed(this.engine, column);
  }

  /** Whether a space-separated list of names (posts.tag_string) holds `name` as a whole entry. */
  listsTag(list: Expression<string>, name: string): RawBuilder<SqlBool> {
    return sqlText.listsTag(this.engine, list, name);
  }

  /** `column` is one of a list given as one parameter (listParam), so one statement text serves every length. */
  oneOf(column: Expression<unknown>, list: unknown): RawBuilder<SqlBool> {
    return sqlText.oneOf(this.engine, column, list);
  }

  /** A list of numbers or strings as the one parameter oneOf takes. */
  listParam(values: readonly (number | string)[]): unknown {
    return sqlText.listParam(this.engine, values);
  }

  /**
   * The post ids of a list parameter (listParam) as rows `j(id, position)`, for a FROM clause:
   * json_each on SQLite, unnest WITH ORDINALITY on PostgreSQL.
   */
  idRows(list: unknown): { from: RawBuilder<unknown>; id: RawBuilder<number>; position: RawBuilder<number> } {
    return this.engine === 'sqlite'
      ? { from: sql`json_each(${list}) j`, id: sql<number>`j.value`, position: sql<number>`j.key` }
      : { from: sql`unnest(${list}::integer[]) WITH ORDINALITY AS j(id, ord)`, id: sql<number>`j.id`, position: sql<number>`j.ord` };
  }

  /**
   * Several lists of post ids in one statement, as rows `j(id, page, position)`: `ids` and `pages`
   * (listParam) are of one length, `pages[i]` the list `ids[i]` is of; positions count over both.
   */
  idPageRows(ids: unknown, pages: unknown): { from: RawBuilder<unknown>; id: RawBuilder<number>; page: RawBuilder<number>; position: RawBuilder<number> } {
    return this.engine === 'sqlite'
      ? {
          from: sql`json_each(${ids}) j JOIN json_each(${pages}) g ON g.key = j.key`,
          id: sql<number>`j.value`,
          page: sql<number>`g.value`,
          position: sql<number>`j.key`,
        }
      : {
          from: sql`unnest(${ids}::integer[], ${pages}::integer[]) WITH ORDINALITY AS j(id, page, ord)`,
          id: sql<number>`j.id`,
          page: sql<number>`j.page`,
          position: sql<number>`j.ord`,
        };
  }

  /**
   * Runs `run` so that its statements stop with OverBudget once `ms` have passed. PostgreSQL
   * cancels them itself (statement_timeout, in a transaction of their own). A SQLite statement
   * cannot be interrupted from outside (it runs on this thread), so there `guard`, ANDed into a
   * statement's WHERE, is a function of ours that throws once the time is up; on PostgreSQL it is
   * TRUE. Put it first, so it is called for every row the statement looks at.
   */
  async withinBudget<T>(ms: number, run: (db: Kysely<DB>, guard: RawBuilder<SqlBool>) => Promise<T>): Promise<T> {
    try {
      if (this.engine === 'sqlite') return await run(this, sql<SqlBool>`${sql.raw(DEADLINE_FUNCTION)}(${Date.now() + ms})`);
      return await this.transaction().execute(async (trx) => {
        await sql.raw(`SET LOCAL statement_timeout = ${Math.max(1, Math.ceil(ms))}`).execute(trx);
        return run(trx, sql<SqlBool>`TRUE`);
      });
    } catch (err) {
      const e = err as { code?: string; message?: string } | null;
      if (e?.code === '57014' || e?.message === DEADLINE_PASSED) throw new OverBudget(ms);
      throw err;
    }
  }

  /** joinedText in `order` on both engines (SQLite sorts only when asked: it costs it more than the join). */
  joinedTextInOrder(value: Expression<unknown>, order: RawBuilder<unknown>): RawBuilder<string | null> {
    return this.engine === 'sqlite' ? sql<string | null>`group_concat(${value}, ',' ORDER BY ${order})` : this.joinedText(value, order);
  }

  /** Values of a row as one text (see fieldsText in dialect.ts); split it with FIELD_SEPARATOR. */
  fieldsText(values: Expression<unknown>[]): RawBuilder<string> {
    return sqlText.fieldsText(this.engine, values);
  }

  /** An aggregate joining `value` over the rows with commas, as one text (see joinedText in dialect.ts). */
  joinedText(value: Expression<unknown>, order?: RawBuilder<unknown>): RawBuilder<string | null> {
    return sqlText.joinedText(this.engine, value, order);
  }
}

/** A statement run by withinBudget that did not finish in time. */
export class OverBudget extends Error {
  constructor(readonly ms: number) {
    super(`the statement did not finish within ${ms} ms`);
  }
}

/** The SQLite function withinBudget's guard calls (registered on every connection: database.ts). */
export const DEADLINE_FUNCTION = 'imageboard_deadline';
const DEADLINE_PASSED = 'imageboard: deadline passed';

/**
 * The guard's body: true until `until` (ms since the epoch), then it throws, which ends the
 * statement. The clock is read once every 256 rows of a query (its statements share `until`;
 * one statement runs at a time on the connection); a row costs well under a microsecond.
 */
export function deadlineGuard(): (until: number) => number {
  let calls = 0;
  let of = 0;
  return (until) => {
    if (until !== of) {
      of = until;
      calls = 0;
    }
    if ((++calls & 255) === 0 && Date.now() > until) throw new Error(DEADLINE_PASSED);
    return 1;
  };
}

export { escapeLike, ftsPhrase, isUniqueViolation } from './dialect.ts';
