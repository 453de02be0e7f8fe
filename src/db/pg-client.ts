import type pg from 'pg';
import { CommittingQuery, commitsWith } from './commit-with.ts';
import { statementName } from './named-statements.ts';

type Query = (config: unknown, values?: unknown, callback?: unknown) => unknown;
type Result = { command: string | null; rowCount: number | null; rows: unknown[] };

/**
 * Wraps a pooled client's query (Kysely calls client.query(text, values)): named texts go by name
 * (named-statements.ts), and a statement that commits with it (commit-with.ts) goes with its
 * COMMIT, after which the transaction's own COMMIT is answered here.
 */
export function wrapClient(client: pg.PoolClient): void {
  const query = client.query.bind(client) as Query;
  let committed = false;
  (client as unknown as { query: Query }).query = (config, values, callback) => {
    if (typeof config !== 'string' || !Array.isArray(values)) return query(config, values, callback);
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
    return name === undefined ? query(config, values, callback) : query({ name, text: config, values }, callback);
  };
}
