/**
 * When to ask a board again, and after how long. Kept apart from the client so the waits can be
 * tested without a server.
 */

/**
 * Answers worth asking again: rate limited (429), down for a moment (503), and a gateway that lost
 * the board (502, 504). A 500 is not among them: Danbooru answers it for a search that timed out,
 * which times out again.
 */
export const RETRY_STATUSES = new Set([429, 502, 503, 504]);

/** Backoff without a Retry-After: 1 s, 2 s, 4 s... */
const BACKOFF_BASE_MS = 1000;
const BACKOFF_CAP_MS = 60_000;
/** A board asking for more than this is believed only up to it: an import should not sleep for hours unseen. */
const RETRY_AFTER_CAP_MS = 10 * 60_000;

/** The wait before try `tries + 1` (tries counts from 0) when the board said nothing. */
export function backoff(tries: number): number {
  return Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, tries));
}

/**
 * The wait a Retry-After header asks for, in seconds or as an HTTP date (RFC 9110 10.2.3);
 * null when it is missing or unreadable. A date in the past is no wait.
 */
export function retryAfterMs(header: string | null, now: number): number | null {
  const value = header?.trim();
  if (!value) return null;
  if (/^\d+$/.test(value)) return Math.min(RETRY_AFTER_CAP_MS, Number(value) * 1000);
  const at = Date.parse(value);
  if (Number.isNaN(at)) return null;
  return Math.min(RETRY_AFTER_CAP_MS, Math.max(0, at - now));
}

/** The wait after an answer of `status` that will be asked again. */
export function waitAfter(status: number, retryAfter: string | null, tries: number, now: number): number {
  // Only 429 and 503 carry a Retry-After by the standard; a gateway's would be its own guess.
  const said = status === 429 || status === 503 ? retryAfterMs(retryAfter, now) : null;
  return said ?? backoff(tries);
}
