import { CompiledQuery, sql, type Insertable, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';

/** SQLite allows 32,766 bound values a statement (PostgreSQL 65,535); stay under both. */
export const MAX_PARAMS = 32_000;

/**
 * Writes a batch of rows of one shape by another way than INSERT, on the connection (and inside
 * the transaction) of the Kysely statements around it: PostgreSQL's COPY for the benchmark's
 * datasets (bench/pg-copy.ts), where multi-row INSERTs of a ten-million-post board take hours.
 */
export interface BulkWriter {
  write(table: string, columns: readonly string[], rows: readonly Record<string, unknown>[]): Promise<void>;
}

/**
 * Collects rows of one table and writes them as multi-row INSERTs of as many rows as the
 * bound-value limit allows. add() says when the batch is full, so callers can first flush the
 * rows the new ones refer to. With a bulk writer the same batches go to it instead: one statement
 * each as before, so statement triggers (posts' title words, whose vocabulary ids follow the
 * order of statements) see the same rows together, and the database ends the same.
 */
export class Inserter<T extends keyof DB & string> {
  private rows: Insertable<DB[T]>[] = [];
  private perStatement = 0;
  private numbered: boolean | undefined;
  written = 0;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly table: T,
    private readonly bulk: BulkWriter | null = null,
  ) {}

  /** Queues a row; true when the batch is full and should be flushed. */
  add(row: Insertable<DB[T]>): boolean {
    if (this.perStatement === 0) this.perStatement = Math.max(1, Math.floor(MAX_PARAMS / Object.keys(row).length));
    this.rows.push(row);
    return this.rows.length >= this.perStatement;
  }

  /** Writes everything queued, as many statements as it takes. */
  async flush(): Promise<void> {
    const rows = this.rows;
    this.rows = [];
    for (let at = 0; at < rows.length; at += this.perStatement) {
      const batch = rows.slice(at, at + this.perStatement) as Record<string, unknown>[];
      const columns = sameColumns(batch);
      if (columns && this.bulk) await this.bulk.write(this.table, columns, batch);
      else if (columns) await this.db.executeQuery(this.statement(columns, batch));
      // Kysely cannot relate Insertable<DB[T]> to its insert type for a generic T; the rows are typed at add().
      else
        await this.db
          .insertInto(this.table)
          .values(batch as any)
          .execute();
      this.written += batch.length;
    }
  }

  /**
   * The INSERT for rows that all have the same columns, written here: Kysely's builder parses and
   * compiles every one of a batch's ~32,000 values (a fifth of a million-post seed's CPU).
   */
  private statement(columns: string[], batch: Record<string, unknown>[]): CompiledQuery {
    // The engine's placeholder style: ? (SQLite) or $1 (PostgreSQL), as its own compiler writes it.
    this.numbered ??= this.db.selectNoFrom(sql<number>`${1}`.as('one')).compile().sql.includes('$1');
    const params: unknown[] = [];
    const tuples: string[] = [];
    for (const row of batch) {
      const marks: string[] = [];
      for (const c of columns) {
        params.push(row[c]);
        marks.push(this.numbered ? `$${params.length}` : '?');
      }
      tuples.push(`(${marks.join(',')})`);
    }
    const names = columns.map((c) => `"${c.replace(/"/g, '""')}"`).join(',');
    return CompiledQuery.raw(`insert into "${this.table}" (${names}) values ${tuples.join(',')}`, params);
  }
}

/** The batch's columns when every row has the same ones, in the same order, none undefined; else null (Kysely then fills in defaults). */
function sameColumns(batch: Record<string, unknown>[]): string[] | null {
  const columns = Object.keys(batch[0]);
  for (const row of batch) {
    const keys = Object.keys(row);
    if (keys.length !== columns.length || keys.some((k, i) => k !== columns[i] || row[k] === undefined)) return null;
  }
  return columns;
}
