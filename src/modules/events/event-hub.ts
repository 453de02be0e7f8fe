import type { Database } from '../../db/engine.ts';
import { eventsAfter, newestEvent, type StoredEvent } from './events.repo.ts';

/** What the hub hands each batch of new events to, in order. */
export interface Subscriber {
  deliver(batch: StoredEvent[]): void;
}

/** Events read a statement. */
export const EVENTS_BATCH = 500;

/**
 * One app's reader of the events table: while any stream is open it reads the events after the
 * last it read, every `pollMs` or at once when woken, and hands each batch to every subscriber.
 * The table is the truth (a restarted instance, or one that was away, reads what it missed);
 * wake-ups only make the next read sooner. With no stream open it reads nothing.
 */
export class EventHub {
  private readonly subscribers = new Set<Subscriber>();
  private last = 0;
  private started: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private reading: Promise<void> | null = null;
  private again = false;
  private stopHearing: (() => void) | null = null;

  /** `hear`: starts hearing other instances' wake-ups (wake-ups.ts) while any stream is open. */
  constructor(
    private readonly db: Database,
    private readonly pollMs: number,
    private readonly onError: (err: unknown) => void,
    private readonly hear: (heard: () => void) => () => void = () => () => {},
  ) {}

  /** Adds a subscriber; resolves to the seq after which the hub hands it every event. */
  async subscribe(s: Subscriber): Promise<number> {
    this.subscribers.add(s);
    if (!this.started) {
      this.stopHearing ??= this.hear(() => this.wake());
      this.started = newestEvent(this.db).then((seq) => {
        this.last = seq;
        this.schedule();
      });
      this.started.catch(() => {
        this.started = null;
      });
    }
    await this.started;
    return this.last;
  }

  unsubscribe(s: Subscriber): void {
    this.subscribers.delete(s);
    if (this.subscribers.size > 0) return;
    // Nobody listens: stop reading; the next subscriber starts from the newest event again.
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.started = null;
    this.stopHearing?.();
    this.stopHearing = null;
  }

  /** Reads now rather than at the next poll (a write here, or a word from another instance). */
  wake(): void {
    if (!this.started) return;
    if (this.reading) {
      this.again = true;
      return;
    }
    this.read();
  }

  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.read(), this.pollMs);
    this.timer.unref();
  }

  private read(): void {
    if (this.reading || !this.started) return;
    this.reading = this.readAll()
      .catch((err) => this.onError(err))
      .finally(() => {
        this.reading = null;
        if (!this.started) return;
        if (this.again) {
          this.again = false;
          this.read();
        } else this.schedule();
      });
  }

  private async readAll(): Promise<void> {
    for (;;) {
      const batch = await eventsAfter(this.db, this.last, EVENTS_BATCH);
      if (batch.length === 0 || !this.started) return;
      this.last = batch[batch.length - 1].seq;
      for (const s of this.subscribers) s.deliver(batch);
      if (batch.length < EVENTS_BATCH) return;
    }
  }
}
