import pg from 'pg';
import { cpuSecondsOfPid } from './rss.ts';

/** PostgreSQL's version and shared_buffers as a run found them (the report's Machine line). */
export interface PostgresSettings {
  version: string;
  sharedBuffers: string;
}

/**
 * The PostgreSQL backends serving the server under test, told apart from every other connection
 * to the same database (the bench datasets live in schemas of a shared database) by an
 * application_name set on the server's DATABASE_URL. Their CPU time is the database's side of a
 * request (issue 24 point 6: the report gives both sides).
 */
export class ServerBackends {
  readonly name = `imageboard-bench-${process.pid}`;
  private client: pg.Client | null = null;
  /** CPU seconds each open backend had used at the last reading. */
  private seen = new Map<number, number>();
  /** CPU seconds all backends have used since the first reading. */
  private total = 0;

  constructor(private readonly adminUrl: string) {}

  /** The server's DATABASE_URL, naming its connections. */
  serverUrl(databaseUrl: string): string {
    const u = new URL(databaseUrl);
    u.searchParams.set('application_name', this.name);
    return u.toString();
  }

  /**
   * CPU seconds the server's backends have used since the first reading. Each open backend adds
   * what it used since the last reading (a new one, all it used: it started since). A pool closes
   * idle connections, and a sum over the backends open now fell when one closed during a run
   * (negative figures in the report); now what a closed one used after the last reading is lost
   * instead, a little undercount.
   */
  async cpuSeconds(): Promise<number> {
    const { rows } = await (await this.connected()).query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [this.name]);
    const open = new Map<number, number>();
    for (const { pid } of rows) {
      const seconds = cpuSecondsOfPid(Number(pid));
      if (seconds !== null) open.set(Number(pid), seconds);
    }
    for (const [pid, seconds] of open) {
      const before = this.seen.get(pid) ?? 0;
      // Less than before: a new backend was given a closed one's pid.
      this.total += seconds >= before ? seconds - before : seconds;
    }
    this.seen = open;
    return this.total;
  }

  /**
   * PostgreSQL's version and shared_buffers, for the report: with Debian's 128 MB, pages of posts
   * read part of their rows from the OS's cache (docs/benchmarks.md, Figures behind the choices).
   */
  async settings(): Promise<PostgresSettings> {
    const client = await this.connected();
    const show = async (name: string) => String((await client.query(`SHOW ${name}`)).rows[0][name]);
    return { version: await show('server_version'), sharedBuffers: await show('shared_buffers') };
  }

  private async connected(): Promise<pg.Client> {
    if (!this.client) {
      this.client = new pg.Client({ connectionString: this.adminUrl });
      await this.client.connect();
    }
    return this.client;
  }

  async close(): Promise<void> {
    await this.client?.end();
    this.client = null;
  }
}
