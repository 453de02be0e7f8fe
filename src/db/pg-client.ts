import type pg from 'pg';
import { CommittingQuery, commitsWith } from './commit-with.ts';
import { statementName } from './named-statements.ts';
import { asOutage } from './pg-outage.ts';

type Query = (config: unknown, values?: unknown, callback?: unknown) => unknown;
type Result = { command: string | null; rowCount: number | null; rows: unknown[] };

/**
 * Wraps a pooled client's query (Kysely calls client.query(text, values)): named texts go by name
 * (named-statements.ts), a statement that commits with it (commit-with.ts) goes with its COMMIT,
 * after which the transaction's own COMMIT is answered here, and a failure because the server is
 * away rejects as Unavailable (pg-outage.ts).
 */
export function wrapClient(client: pg.PoolClient): void {
  const query = client.query.bind(client) as Query;
  let committed = false;
  // The server ending the connection while the client is checked out between statements (a
  // restart's "terminating connection due to administrator command") is emitted here, where the
  // pool listens only while the client is idle: without a listener it would end the process. The
  // client is then not queryable; its next statement fails, and the pool drops it on release.
  client.on('error', () => {});
  (client as unknown as { query: Query }).query = (config, values, callback) => {
    if (typeof config !== 'string' || !Array.isArray(values) || callback !== undefined) return query(config, values, callback);
    return (run(config, values) as Promise<Result>).catch((err) => {
      throw asOutage(err);
    });
  };
  const run = (config: string, values: unknown[]) => {
    const ended = committed;
    committed = false;
    if (ended && config === 'commit') return Promise.resolve<Result>({ command: 'COMMIT', rowCount: null, rows: [] });
    if (commitsWith(config))
      return new Promise((resolve, reject) => {
        query(
          new CommittingQuery(config, values, (err, result) => {
            if (err) return reject(err);
            committed = true;
            resolve(result);
          }),
        );
      });
    const name = statementName(config);
    return name === undefined ? query(config, values) : query({ name, text: config, values });
  };
}
