import type { Insertable, Kysely } from 'kysely';
import type { DB } from '../db/types.ts';

/** SQLite allows 32,766 bound values a statement (PostgreSQL 65,535); stay under both. */
export const MAX_PARAMS = 32_000;

/**
 * Collects rows of one table and writes them as multi-row INSERTs of as many rows as the
 * bound-value limit allows. add() says when the batch is full, so callers can first flush the
 * rows the new ones refer to.
 */
export class Inserter<T extends keyof DB & string> {
  private rows: Insertable<DB[T]>[] = [];
  private perStatement = 0;
  written = 0;

  constructor(private readonly db: Kysely<DB>, private readonly table: T) {}

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
      const batch = rows.slice(at, at + this.perStatement);
      // Kysely cannot relate Insertable<DB[T]> to its insert type for a generic T; the rows are typed at add().
      await this.db.insertInto(this.table).values(batch as any).execute();
      this.written += batch.length;
    }
  }
}
