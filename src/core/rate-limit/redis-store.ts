import { Redis } from 'ioredis';
import type { FastifyBaseLogger } from 'fastify';
import { MemoryStore, type Decision, type LimitStore, type WindowSpec } from './windows.ts';

/**
 * The same rule as decide() in windows.ts, run atomically inside Redis. Times come from the app's
 * clock (ARGV[1]); keys expire relative to it, so an injected clock works too.
 * KEYS: one per window. ARGV: now, then limit and ms per window. Returns flat [allowed, count, resetAt, ...].
 */
const SCRIPT = `
local now = tonumber(ARGV[1])
local n = #KEYS
local counts, resets = {}, {}
local allowed = 1
for i = 1, n do
  local limit = tonumber(ARGV[2 * i])
  local ms = tonumber(ARGV[2 * i + 1])
  local v = redis.call('HMGET', KEYS[i], 'c', 'r')
  local c, r = tonumber(v[1]), tonumber(v[2])
  if (not r) or now >= r then c = 0; r = now + ms end
  counts[i], resets[i] = c, r
  if c + 1 > limit then allowed = 0 end
end
local out = { allowed }
for i = 1, n do
  if allowed == 1 then
    counts[i] = counts[i] + 1
    redis.call('HSET', KEYS[i], 'c', counts[i], 'r', resets[i])
    redis.call('PEXPIRE', KEYS[i], resets[i] - now + 1000)
  end
  out[#out + 1] = counts[i]
  out[#out + 1] = resets[i]
end
return out
`;

/**
 * A command Redis has not answered within this has failed: a Redis that hangs (its process
 * stopped, or cut off with the connection still open) would otherwise hold every API request.
 */
const COMMAND_TIMEOUT_MS = 500;
/** After a failure, requests are counted locally for this long before one tries Redis again: a hanging Redis costs a request its timeout once a second, not every request. */
const RETRY_AFTER_MS = 1000;

/**
 * Counters shared by every instance through Redis. When Redis cannot be reached, or does not
 * answer, requests are still served: this process counts locally and logs a warning (at most
 * every 30 s) until Redis answers again.
 */
export class RedisStore implements LimitStore {
  private readonly redis: Redis;
  private readonly local = new MemoryStore();
  private down = false;
  /** While down: when a request tries Redis again (Date.now()). */
  private retryAt = 0;
  private lastWarn = 0;

  constructor(
    url: string,
    private readonly prefix: string,
    private readonly log: FastifyBaseLogger,
  ) {
    this.redis = new Redis(url, {
      lazyConnect: false,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: 2000,
      commandTimeout: COMMAND_TIMEOUT_MS,
      retryStrategy: (n) => Math.min(n * 200, 2000),
    });
    this.redis.on('error', () => {}); // reported through hit() failures instead
    this.redis.defineCommand('rlhit', { lua: SCRIPT });
  }

  /** Waits (briefly) for the first connection, so the first requests already count in Redis. */
  async ready(timeoutMs = 2000): Promise<void> {
    if (this.redis.status === 'ready') return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.redis.off('ready', done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.redis.once('ready', done);
    });
  }

  async hit(windows: WindowSpec[], now: number): Promise<Decision> {
    if (this.down && Date.now() < this.retryAt) return this.local.hit(windows, now);
    try {
      const args: (string | number)[] = [now];
      for (const w of windows) args.push(w.limit, w.ms);
      const keys = windows.map((w) => this.prefix + w.key);
      const out = (
        await (this.redis as unknown as { rlhit(n: number, ...a: (string | number)[]): Promise<number[]> }).rlhit(keys.length, ...keys, ...args)
      ).map(Number);
      if (this.down) {
        this.down = false;
        this.log.info('rate limiter: Redis is back; counting there again');
      }
      return { allowed: out[0] === 1, windows: windows.map((w, i) => ({ ...w, count: out[1 + 2 * i], resetAt: out[2 + 2 * i] })) };
    } catch (err) {
      this.down = true;
      this.retryAt = Date.now() + RETRY_AFTER_MS;
      if (Date.now() - this.lastWarn > 30_000) {
        this.lastWarn = Date.now();
        this.log.warn({ err: (err as Error).message }, 'rate limiter: Redis unreachable; counting in this process until it is back');
      }
      return this.local.hit(windows, now);
    }
  }

  /** Throws unless Redis answers (for /readyz); fails at once while disconnected (no offline queue). */
  async ping(): Promise<void> {
    await this.redis.ping();
  }

  async close(): Promise<void> {
    this.redis.disconnect();
    await this.local.close();
  }
}
