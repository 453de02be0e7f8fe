// The one way pages talk to the server: same-origin fetch with the session cookie, JSON in and
// out, and every error turned into an ApiError whose message is the server's own words.
import { signal } from '../lib/store.ts';

export interface FieldError {
  field: string;
  message: string;
  /** Where in the field's text the error is (the search language's errors give it). */
  position?: number;
}

export class ApiError extends Error {
  constructor(
    public status: number,
    message: string,
    public body: { details?: FieldError[]; retryAfter?: number; postId?: string; reportId?: string; ban?: BanInfo } = {},
  ) {
    super(message);
  }
}

/** What a 400 says about one field (its `details` entry), or undefined when it is about something else. */
export function fieldDetail(error: unknown, field: string): FieldError | undefined {
  if (!(error instanceof ApiError) || error.status !== 400) return undefined;
  return error.body.details?.find((d) => d.field === field);
}

/** The `ban` of a banned user's refused write: why, and when it ends (null: permanent). */
export interface BanInfo {
  reason: string;
  until: string | null;
}

/** The ban the server last named in a refused write: the ban banner shows it until dismissed. */
export const banNotice = signal<BanInfo | null>(null);

/** When the server last said "too many requests": the banner counts down to `until`. */
export const rateLimit = signal<{ until: number } | null>(null);

/** Reads an error response into words; 429 names the wait, and is announced to the banner. */
export function errorFrom(status: number, text: string, retryHeader: string | null): ApiError {
  let body: any = {};
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON: a proxy page or an empty body */
  }
  if (status === 429) {
    const seconds = Math.max(1, Number(body.retryAfter ?? retryHeader ?? 60) || 60);
    rateLimit.set({ until: Date.now() + seconds * 1000 });
    return new ApiError(429, `Too many requests: please wait ${seconds} second${seconds === 1 ? '' : 's'} and try again.`, { ...body, retryAfter: seconds });
  }
  // Every refused write of a banned user says so the same way, whichever form sent it.
  if (status === 403 && body.ban && typeof body.ban.reason === 'string') banNotice.set({ reason: body.ban.reason, until: body.ban.until ?? null });
  const fallback = status === 0 ? 'The server could not be reached. Check your connection and try again.' : `The server answered ${status}.`;
  let message = typeof body.error === 'string' && body.error ? body.error : fallback;
  if (Array.isArray(body.details) && body.details.length && !message.includes(body.details[0].message)) {
    message += ` (${body.details.map((d: FieldError) => `${d.field}: ${d.message}`).join('; ')})`;
  }
  return new ApiError(status, message, body);
}

export type Params = Record<string, string | number | boolean | undefined | null | string[]>;

/** `?a=1&tag=x&tag=y`, leaving out empty values. */
export function toQuery(params: Params = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === null || v === '') continue;
    if (Array.isArray(v)) v.forEach((x) => q.append(k, x));
    else q.set(k, String(v));
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}

interface Options {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  json?: unknown;
  form?: FormData;
  signal?: AbortSignal;
}

export async function api<T>(path: string, opts: Options = {}): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  let body: BodyInit | undefined;
  if (opts.json !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(opts.json);
  } else if (opts.form) body = opts.form;
  let res: Response;
  try {
    res = await fetch(path, { method: opts.method ?? 'GET', headers, body, signal: opts.signal, credentials: 'same-origin' });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw errorFrom(0, '', null);
  }
  const text = await res.text();
  if (!res.ok) throw errorFrom(res.status, text, res.headers.get('Retry-After'));
  return (text ? JSON.parse(text) : {}) as T;
}

// A short-lived cache of GET answers, so going back to a page shows it at once, in place.
const cache = new Map<string, { at: number; data: unknown }>();
const FRESH_MS = 60_000;

export function cached<T>(path: string): T | undefined {
  const hit = cache.get(path);
  return hit && Date.now() - hit.at < FRESH_MS ? (hit.data as T) : undefined;
}

export async function getCached<T>(path: string, signal?: AbortSignal): Promise<T> {
  const hit = cached<T>(path);
  if (hit) return hit;
  const data = await api<T>(path, { signal });
  prime(path, data);
  return data;
}

/** Stores an answer got another way (a post that came as another's neighbour) as the answer to `path`. */
export function prime(path: string, data: unknown): void {
  cache.set(path, { at: Date.now(), data });
  if (cache.size > 100) cache.delete(cache.keys().next().value!);
}

/** Forget cached answers (after a change the lists must show). */
export function invalidate(prefix = ''): void {
  for (const k of [...cache.keys()]) if (k.startsWith(prefix)) cache.delete(k);
}
