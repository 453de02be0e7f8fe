import { HOURLY_BUDGET, type Tier } from '../tiers.ts';

/** Requests per minute for each route's `config.limit` name (the reference's Limits table). */
export const PER_MINUTE: Record<string, number> = {
  posts: 50, // GET /api/posts
  post: 50, // GET /api/posts/<id> (and what hangs off one post)
  tags: 50,
  pools: 50,
  user: 50, // GET /api/users/<username>
  status: 30, // GET /api/public/status
  upload: 10, // per user
  comments: 10, // per user
  keys: 5, // each API-key endpoint, per user
  auth: 10, // login and register, per IP
};
/** Everything else the reference gives no number: 60 a minute. */
export const DEFAULT_PER_MINUTE = 60;
const MINUTE = 60_000;
const HOUR = 3_600_000;

export interface Caller {
  ip: string;
  userId: number | null;
  tier: Tier | null;
  byKey: boolean;
  /** A write (POST, PUT, PATCH, DELETE). */
  write: boolean;
}

/**
 * The windows one request counts in. Anonymous and session reads: per client IP. Session writes
 * and every request with an API key: per user. With a key, also the tier's hourly budget per user
 * over all endpoints together.
 */
export function windowsFor(route: string, limitName: string | undefined, c: Caller) {
  const perMinute = (limitName && PER_MINUTE[limitName]) || DEFAULT_PER_MINUTE;
  const perUser = c.userId !== null && (c.byKey || c.write);
  const subject = perUser ? `u:${c.userId}` : `ip:${c.ip}`;
  const windows = [{ key: `m:${route}:${subject}`, limit: perMinute, ms: MINUTE }];
  if (c.byKey && c.userId !== null && c.tier) windows.push({ key: `h:u:${c.userId}`, limit: HOURLY_BUDGET[c.tier], ms: HOUR });
  return windows;
}
