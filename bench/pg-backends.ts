import pg from 'pg';
import { cpuSecondsOf } from './rss.ts';

/**
 * The PostgreSQL backends serving the server under test, told apart from every other connection
 * to the same database (the bench datasets live in schemas of a shared database) by an
 * application_name set on the server's DATABASE_URL. Their CPU time is the database's side of a
 * request (issue 24 point 6: the report gives both sides).
 */
export class ServerBackends {
  readonly name = `imageboard-bench-${process.pid}`;
  private client: pg.Client | null = null;

  constructor(private readonly adminUrl: string) {}

  /** The server's DATABASE_URL, naming its connections. */
  serverUrl(databaseUrl: string): string {
    const u = new URL(databaseUrl);
    u.searchParams.set('application_name', this.name);
    return u.toString();
  }

  /** CPU seconds the server's backends have used so far (those open now; a pool keeps them open). */
  async cpuSeconds(): Promise<number> {
    if (!this.client) {
      this.client = new pg.Client({ connectionString: this.adminUrl });
      await this.client.connect();
    }
    const { rows } = await this.client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [this.name]);
    return cpuSecondsOf(rows.map((r) => Number(r.pid)));
  }

  async close(): Promise<void> {
    await this.client?.end();
    this.client = null;
  }
}
