import pg from 'pg';
import { sql, type RawBuilder } from 'kysely';

/**
 * A transaction's last statement sent with its COMMIT in one message (PostgreSQL): the server runs
 * the statement and commits at once, so the locks the statement took (the commit-order lock, popular
 * tags' rows: db/locks.ts) are held for its run and the commit's flush, not also for the trip of its
 * answer to a Node process whose event loop may be busy and back. Every upload takes those locks, so
 * that trip was what the uploads of a whole fleet queued behind (docs/benchmarks.md, issue 24).
 *
 * A statement asks for it by ending with this comment (`commitsAfter`). The client wrapper
 * (pg-client.ts) then sends Parse, Bind, Execute of the statement, then of COMMIT, then one Sync:
 * the extended protocol runs them in order and skips the rest after an error, so a failed
 * statement commits nothing and the caller's ROLLBACK follows as usual. The transaction's own
 * COMMIT that Kysely sends next is answered by the wrapper without a trip.
 */
export const COMMITS_MARK = '/* and commit */';

/** Appended to a statement (`.modifyEnd(commitsAfter())`): the transaction commits with it. */
export const commitsAfter = (): RawBuilder<unknown> => sql.raw(COMMITS_MARK);

/** Whether a statement's text asks to commit with it. */
export const commitsWith = (text: string): boolean => text.endsWith(COMMITS_MARK);

type Connection = {
  parse(msg: { text: string }): void;
  bind(msg: { portal: string }): void;
  execute(msg: { portal: string; rows?: number }): void;
  sync(): void;
};

/** The part of pg's Query (pg/lib/query.js) this class builds on. */
interface PgQuery {
  _result: { command: string | null };
  handleCommandComplete(msg: unknown, connection: Connection): void;
}
const PgQuery = pg.Query as unknown as {
  new (text: string, values: unknown[], callback: (err: Error | null, result: unknown) => void): PgQuery;
  prototype: PgQuery;
};

/** pg's Query, followed in the same message by COMMIT; answers with the statement's result alone. */
export class CommittingQuery extends PgQuery {
  constructor(text: string, values: unknown[], callback: (err: Error | null, result: unknown) => void) {
    super(text, values, callback);
  }

  /** pg's Query ends its Parse, Bind, Describe here with Execute and Sync: COMMIT goes in between. */
  _getRows(connection: Connection): void {
    connection.execute({ portal: '' });
    connection.parse({ text: 'COMMIT' });
    connection.bind({ portal: '' });
    connection.execute({ portal: '' });
    connection.sync();
  }

  /** The COMMIT's completion is not a second result: Kysely reads the statement's. */
  override handleCommandComplete(msg: unknown, connection: Connection): void {
    if (this._result.command) return;
    super.handleCommandComplete(msg, connection);
  }
}
