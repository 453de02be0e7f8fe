import type { Kysely } from 'kysely';
import { Database } from './engine.ts';
import type { DB } from './types.ts';

/**
 * Joins calls that arrive while earlier ones are out into one: at most one batch is out at a
 * time, and the calls that come meanwhile go together in the next. A call alone goes at once; under
 * load the statements, and the round trips to the database, a call costs come down by the
 * batch's size. A call is answered only by a batch sent after it was made, so it sees every write
 * that committed before it. A batch that fails fails each of its calls.
 */
export class Coalescer<I, O> {
  private waiting: { input: I; resolve: (o: O) => void; reject: (e: unknown) => void }[] = [];
  private out = false;

  constructor(
    private readonly runMany: (inputs: I[]) => Promise<O[]>,
    private readonly maxBatch = 64,
  ) {}

  run(input: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.waiting.push({ input, resolve, reject });
      if (!this.out) this.send();
    });
  }

  private send(): void {
    const batch = this.waiting.splice(0, this.maxBatch);
    if (batch.length === 0) return;
    this.out = true;
    const settle = () => {
      this.out = false;
      this.send();
    };
    this.runMany(batch.map((b) => b.input)).then(
      (outputs) => {
        settle();
        for (let i = 0; i < batch.length; i++) batch[i].resolve(outputs[i]);
      },
      (err) => {
        settle();
        for (const b of batch) b.reject(err);
      },
    );
  }
}

/** One Coalescer a database (tests run several in a process), made on first use. */
export function coalescerPer<D extends object, I, O>(make: (db: D) => Coalescer<I, O>): (db: D) => Coalescer<I, O> {
  const made = new WeakMap<D, Coalescer<I, O>>();
  return (db) => {
    let c = made.get(db);
    if (!c) made.set(db, (c = make(db)));
    return c;
  };
}

/**
 * A read of values by keys that, where it pays (Database.coalesces), reads the keys of calls made
 * while one is out in one go: each call gets the map of every key read with it, its own among
 * them (a key with nothing is absent). Elsewhere, and in a transaction, each call reads its own.
 */
export function coalescedReads<K, V>(read: (db: Database, keys: K[]) => Promise<Map<K, V>>): (db: Kysely<DB>, keys: K[]) => Promise<Map<K, V>> {
  const batches = coalescerPer(
    (db: Database) =>
      new Coalescer<K[], Map<K, V>>(async (calls) => {
        const found = await read(db, [...new Set(calls.flat())]);
        return calls.map(() => found);
      }),
  );
  return (db, keys) => (db instanceof Database && db.coalesces ? batches(db).run(keys) : read(db as Database, keys));
}

/** A read without keys (a few counters, say) that calls made while one is out share (see coalescedReads). */
export function coalescedRead<V>(read: (db: Database) => Promise<V>): (db: Database) => Promise<V> {
  const batches = coalescerPer(
    (db: Database) =>
      new Coalescer<null, V>(async (calls) => {
        const value = await read(db);
        return calls.map(() => value);
      }),
  );
  return (db) => (db.coalesces ? batches(db).run(null) : read(db));
}
