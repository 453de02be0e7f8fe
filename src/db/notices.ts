import { BroadcastChannel } from 'node:worker_threads';
import type pg from 'pg';

/** Stops a listener: its connection closes. */
export type StopListening = () => Promise<void>;

/** Who hears a Database's notify(): `listen` hears a name; `say` says one, where it is not said in SQL (SQLite). */
export interface Notices {
  listen(name: string, heard: () => void): StopListening;
  say?(name: string): void;
}

/**
 * SQLite: the serving threads of the one process that writes the file (WORKERS > 1) hear each
 * other through a BroadcastChannel named after the file, which hears every other channel of its
 * name in the process, not itself.
 */
export function threadNotices(file: string): Notices {
  const senders = new Map<string, BroadcastChannel>();
  return {
    listen(name, heard) {
      const channel = new BroadcastChannel(`${name}:${file}`);
      channel.onmessage = () => heard();
      channel.unref();
      return async () => channel.close();
    },
    say(name) {
      let sender = senders.get(name);
      if (!sender) {
        sender = new BroadcastChannel(`${name}:${file}`);
        sender.unref();
        senders.set(name, sender);
      }
      sender.postMessage(1);
    },
  };
}

/** How long a listener whose connection broke waits before it connects again. */
const RECONNECT_MS = 1000;

/**
 * PostgreSQL: calls `heard` on each NOTIFY of the channel `name_<schema>` (the schema the
 * connection's search_path names first, so boards and test runs in other schemas of one database
 * do not hear each other), on a connection of its own that holds nothing else. A connection that
 * breaks (a restart) is made again every second until it is back; what was said meanwhile is
 * lost, which is why a listener is only ever a wake-up for a reader that also polls.
 */
export function pgListener(Client: typeof pg.Client, config: pg.ClientConfig): Notices['listen'] {
  return (name: string, heard: () => void): StopListening => {
    let stopped = false;
    let client: pg.Client | null = null;
    let timer: NodeJS.Timeout | null = null;
    const connect = async () => {
      timer = null;
      if (stopped) return;
      const c = new Client(config);
      client = c;
      const retry = () => {
        if (client !== c || stopped) return;
        client = null;
        c.end().catch(() => {});
        timer = setTimeout(connect, RECONNECT_MS);
        timer.unref();
      };
      c.on('error', retry);
      c.on('end', retry);
      c.on('notification', () => heard());
      try {
        await c.connect();
        const { rows } = await c.query<{ schema: string }>('SELECT current_schema() AS schema');
        await c.query(`LISTEN "${channelOf(name, rows[0].schema)}"`);
        // Whatever was said while this connection was being made is unheard: the reader reads now.
        heard();
      } catch {
        retry();
      }
    };
    void connect();
    return async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      const c = client;
      client = null;
      await c?.end().catch(() => {});
    };
  };
}

/** The channel of `name` in `schema` (an identifier PostgreSQL keeps to 63 bytes). */
export const channelOf = (name: string, schema: string) => `${name}_${schema}`.slice(0, 63).replace(/"/g, '');
