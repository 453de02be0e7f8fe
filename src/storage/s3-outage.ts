import { mediaUnavailable, UNREACHABLE_CODES, Unavailable } from './unavailable.ts';

/**
 * Whether a failed request to the bucket means the bucket was away or failing (no connection, no
 * answer in time, a 5xx or 429 once the SDK's retries are spent), not that the request was wrong:
 * a 404 or a 403 is the bucket's answer, and stays what it is.
 */
export function bucketAway(err: unknown): boolean {
  const e = err as { $metadata?: { httpStatusCode?: number }; code?: unknown; name?: unknown } | null;
  const status = e?.$metadata?.httpStatusCode;
  if (status !== undefined) return status >= 500 || status === 429;
  // The SDK's request handler names its connection and idle timeouts so, without a code.
  if (e?.name === 'TimeoutError') return true;
  return typeof e?.code === 'string' && UNREACHABLE_CODES.has(e.code);
}

/** The error to throw for a failed request to the bucket: Unavailable('media store') when it was away, else the failure itself. */
export const asOutage = (err: unknown): unknown => (err instanceof Unavailable || !bucketAway(err) ? err : mediaUnavailable(err));

/** Whether an error is the bucket's outage (asOutage's): another try, a moment later, may not meet it. */
export const isOutage = (err: unknown): boolean => err instanceof Unavailable && err.dependency === 'media store';
