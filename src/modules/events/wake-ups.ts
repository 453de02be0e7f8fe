import { Redis } from 'ioredis';
import type { Deps } from '../../core/deps.ts';

/**
 * Word between instances that events were written, so their readers read now instead of at their
 * next poll: Redis pub/sub when REDIS_URL is set, else PostgreSQL's NOTIFY, else (SQLite: one
 * process) a channel between the process's serving threads. A wake-up can be lost (a connection
 * away); the readers' polling still finds the events, later.
 */
export interface WakeUps {
  /** Says that events were written; several said within a few ms go as one. */
  say(): void;
  /** Calls `heard` on each word from any instance (this one too) until the function returned is called. */
  hear(heard: () => void): () => void;
  close(): Promise<void>;
}

/** What several writes in a burst wait to go as one word. */
const COALESCE_MS = 10;

const NAME = 'events';

export function createWakeUps(deps: Pick<Deps, 'db' | 'config'>, log: (err: unknown, what: string) => void): WakeUps {
  const send = deps.config.redisUrl ? redisWakeUps(deps.config.redisUrl, `${deps.config.redisPrefix}${NAME}`) : dbWakeUps(deps);
  let pending: NodeJS.Timeout | null = null;
  return {
    say() {
      if (pending) return;
      pending = setTimeout(() => {
        pending = null;
        send.say().catch((err) => log(err, 'events: a wake-up was not sent'));
      }, COALESCE_MS);
      pending.unref();
    },
    hear: send.hear,
    async close() {
      if (pending) clearTimeout(pending);
      await send.close();
    },
  };
}

interface Sender {
  say(): Promise<void>;
  hear(heard: () => void): () => void;
  close(): Promise<void>;
}

function dbWakeUps({ db }: Pick<Deps, 'db'>): Sender {
  return {
    say: () => db.notify(NAME),
    hear(heard) {
      const stop = db.listen(NAME, heard);
      return () => void stop?.();
    },
    close: async () => {},
  };
}

/** Redis connections that fail fast instead of queueing words while Redis is away. */
const connect = (url: string) => {
  const r = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 0, connectTimeout: 2000, retryStrategy: (n) => Math.min(n * 200, 2000) });
  r.on('error', () => {}); // a lost word is found by the next poll
  return r;
};

/** How long a word waits for its Redis connection. */
const READY_WAIT_MS = 2000;

function once(r: Redis, event: string, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      r.off(event, done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    timer.unref();
    r.once(event, done);
  });
}

function redisWakeUps(url: string, channel: string): Sender {
  let publisher: Redis | null = null;
  const listeners = new Set<Redis>();
  return {
    async say() {
      publisher ??= connect(url);
      const p = publisher;
      // The first word waits for the connection (briefly); later ones go at once or are lost.
      if (p.status !== 'ready') await once(p, 'ready', READY_WAIT_MS);
      if (p.status === 'ready') await p.publish(channel, '1');
    },
    hear(heard) {
      const sub = connect(url);
      listeners.add(sub);
      sub.on('message', () => heard());
      // Subscribed again after each reconnect; what was said meanwhile is read now.
      sub.on('ready', () => {
        sub.subscribe(channel).then(heard, () => {});
      });
      return () => {
        listeners.delete(sub);
        sub.disconnect();
      };
    },
    async close() {
      for (const sub of listeners) sub.disconnect();
      listeners.clear();
      publisher?.disconnect();
      publisher = null;
    },
  };
}
