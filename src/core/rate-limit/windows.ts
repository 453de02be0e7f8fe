/**
 * Fixed windows that start at a subject's first request: the first request opens a window of
 * `ms`; up to `limit` requests pass until it ends. A request passes only if every window that
 * applies has room, and then counts in all of them (a refused request costs nothing).
 */
export interface WindowSpec {
  key: string;
  limit: number;
  ms: number;
}

export interface WindowState {
  count: number;
  resetAt: number;
}

export interface Decision {
  allowed: boolean;
  /** Per window, after this request: what was counted and when it resets. */
  windows: (WindowSpec & WindowState)[];
}

export interface LimitStore {
  /** Checks and counts one request against all windows, atomically. */
  hit(windows: WindowSpec[], now: number): Promise<Decision>;
  close(): Promise<void>;
  /** Throws unless the shared store answers (for /readyz); absent on stores in this process. */
  ping?(): Promise<void>;
}

/** The pure rule, shared by the memory store and (as Lua) the Redis store. */
export function decide(windows: WindowSpec[], states: (WindowState | undefined)[], now: number): Decision {
  const current = windows.map((w, i) => {
    const s = states[i];
    return s && now < s.resetAt ? { ...w, ...s } : { ...w, count: 0, resetAt: now + w.ms };
  });
  const allowed = current.every((w) => w.count + 1 <= w.limit);
  return { allowed, windows: allowed ? current.map((w) => ({ ...w, count: w.count + 1 })) : current };
}

/** Counters in this process. Expired windows are swept now and then, so memory stays bounded. */
export class MemoryStore implements LimitStore {
  private readonly map = new Map<string, WindowState>();
  private nextSweep = 0;

  async hit(windows: WindowSpec[], now: number): Promise<Decision> {
    if (now >= this.nextSweep) this.sweep(now);
    const d = decide(
      windows,
      windows.map((w) => this.map.get(w.key)),
      now,
    );
    for (const w of d.windows) this.map.set(w.key, { count: w.count, resetAt: w.resetAt });
    return d;
  }

  private sweep(now: number): void {
    for (const [k, s] of this.map) if (s.resetAt <= now) this.map.delete(k);
    this.nextSweep = now + 60_000;
  }

  async close(): Promise<void> {
    this.map.clear();
  }
}
