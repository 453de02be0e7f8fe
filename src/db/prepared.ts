import { type Compilable, type CompiledQuery, type Expression, type Kysely, type RawBuilder, type SqlBool, sql } from 'kysely';
import type { DB } from './types.ts';
import { Database } from './engine.ts';
import { nameStatement } from './named-statements.ts';
import { coalescedReads } from './coalesce.ts';

/** Stands for a named value in a query built once (see prepared): compiled as a parameter, bound per call. */
class Slot {
  constructor(readonly name: string) {}
}

/** A query built with Kysely's builders or written as raw SQL. */
type Query<R> = Compilable<R> | RawBuilder<R>;

const slots = new Proxy({}, { get: (_target, name) => new Slot(String(name)) });

/**
 * A query of fixed shape, built and compiled once per database and then run with new values.
 * Kysely otherwise builds and compiles the same tree on every call, about a tenth of a quick
 * request's CPU. `build` gets placeholders for the values (`p.id`, ...) and must give a query
 * whose shape does not depend on them: use them only where a value goes (comparisons, limits,
 * `sql` parameters), never in JavaScript logic. Lists go in as one value (see listParam).
 */
export function prepared<P extends Record<string, unknown>, R>(build: (db: Kysely<DB>, p: P) => Query<R>) {
  const run = compiledOnce(build);
  return (db: Kysely<DB>, values: P): Promise<R[]> => run(db, values);
}

/**
 * prepared, for a query whose text differs between the engines: `build` gets the Database, whose
 * methods write the engine's SQL. Run it on the Database, not inside a transaction.
 */
export function preparedOnDatabase<P extends Record<string, unknown>, R>(build: (db: Database, p: P) => Query<R>) {
  const run = compiledOnce(build as (db: Kysely<DB>, p: P) => Query<R>);
  return (db: Database, values: P): Promise<R[]> => run(db, values);
}

function compiledOnce<P extends Record<string, unknown>, R>(build: (db: Kysely<DB>, p: P) => Query<R>) {
  // Per database (the engine comes with it): tests run SQLite and PostgreSQL in one process.
  const compiled = new WeakMap<Kysely<DB>, CompiledQuery<R>>();
  return async (db: Kysely<DB>, values: P): Promise<R[]> => {
    let query = compiled.get(db);
    if (!query) {
      // A query builder compiles itself; raw SQL (`sql`...``) compiles against the database.
      query = build(db, slots as P).compile(db);
      compiled.set(db, query);
      nameStatement(query.sql);
    }
    const parameters = query.parameters.map((v) => (v instanceof Slot ? values[v.name] : v));
    return db instanceof Database ? db.rowsOf<R>({ ...query, parameters }) : (await db.executeQuery<R>({ ...query, parameters })).rows;
  };
}

/**
 * A lookup of rows by one key (a post's id, a user's name), prepared as above. On a database where
 * it pays (Database.coalesces) the keys of calls made while a lookup is out go together in one
 * statement (`column = ANY(keys)`), and `keyOf` gives each row back to its call. `build` gets
 * `keyIs`, the condition on the key's column to put in its WHERE. In a transaction (a `db` that
 * is not the Database) each call is its own statement, as it must see the transaction's writes;
 * there `build` gets the transaction, so a lookup whose `build` calls the Database's own methods
 * (joinedText, ...) must not be run in one.
 */
export function preparedLookup<K extends number | string, R>(
  build: (db: Database, keyIs: (column: Expression<unknown>) => RawBuilder<SqlBool>) => Query<R>,
  keyOf: (row: R) => K,
) {
  const one = preparedOnDatabase((db, p: { key: K }) => build(db, (column) => sql<SqlBool>`${column} = ${p.key}`));
  const many = preparedOnDatabase((db, p: { keys: unknown }) => build(db, (column) => db.oneOf(column, p.keys)));
  const batched = coalescedReads<K, R[]>(async (db, keys) => {
    const byKey = new Map<K, R[]>();
    for (const row of await many(db, { keys: db.listParam(keys as (number | string)[]) })) {
      const k = keyOf(row);
      const list = byKey.get(k);
      if (list) list.push(row);
      else byKey.set(k, [row]);
    }
    return byKey;
  });
  return async (db: Kysely<DB>, key: K): Promise<R[]> =>
    db instanceof Database && db.coalesces ? ((await batched(db, [key])).get(key) ?? []) : one(db as Database, { key });
}
