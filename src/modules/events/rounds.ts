import type { Database, Tx } from '../../db/engine.ts';
import { type EventCounter, eventsAfter, followedUpTo, moveFollowed, type StoredEvent } from './events.repo.ts';

/** How often each app runs its rounds over new events (webhooks, saved searches). */
export const ROUND_MS = 1000;

/**
 * A round run every ROUND_MS, one at a time, between start() and stop(); stop() waits for the
 * round under way. What each app of each instance runs: the rounds themselves keep the work from
 * being done twice (a counter moved in their transaction).
 */
export function everyRound(round: () => Promise<void>, log: (err: unknown, what: string) => void, what: string) {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  const schedule = () => {
    timer = setTimeout(() => {
      running = round()
        .catch((err) => log(err, `${what}: a round failed`))
        .finally(() => {
          running = null;
          if (timer) schedule();
        });
    }, ROUND_MS);
    timer.unref();
  };
  return {
    start(): void {
      if (!timer) schedule();
    },
    async stop(): Promise<void> {
      if (timer) clearTimeout(timer);
      timer = null;
      await running;
    },
  };
}

/**
 * One round of a follower of the events (webhooks, saved searches): the events after its counter
 * go to `match`, and what it returns is written by `write` in the transaction that moves the
 * counter past them; when another instance moved the counter first, nothing is written (its
 * round did the same events). `after`: the oldest of the followers' first events (null: nobody
 * to match for, and the round does nothing); the events before it are skipped. Returns how many
 * rows were written.
 */
export async function followRound<R>(
  db: Database,
  name: EventCounter,
  after: number | null,
  match: (batch: StoredEvent[]) => Promise<R[]>,
  write: (trx: Tx, rows: R[]) => Promise<void>,
): Promise<number> {
  // Nobody to match for: nothing is read or written (a round a second on every app must not write
  // while a board only imports). What is made later starts after its own newest event anyway.
  if (after === null) return 0;
  const from = await followedUpTo(db, name);
  // Events from before every follower was made concern none of them: skipped, not read.
  const batch = await eventsAfter(db, Math.max(from, after), FOLLOWED_A_ROUND);
  if (batch.length === 0) {
    if (after > from) await db.transaction().execute((trx) => moveFollowed(trx, name, from, after));
    return 0;
  }
  const rows = await match(batch);
  const last = batch[batch.length - 1].seq;
  const won = await db.transaction().execute(async (trx) => {
    if (!(await moveFollowed(trx, name, from, last))) return false;
    await write(trx, rows);
    return true;
  });
  return won ? rows.length : 0;
}

/** Events a follower matches a round. */
const FOLLOWED_A_ROUND = 500;
