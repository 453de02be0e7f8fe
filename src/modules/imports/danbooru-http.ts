import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import { semaphore } from '../../core/semaphore.ts';
import { SourceError } from './import-item.ts';
import { backoff, RETRY_STATUSES, waitAfter } from './danbooru-retry.ts';

/**
 * The HTTP client of the Danbooru import: every request (API pages and file downloads) shares one
 * cap on requests in flight, is asked again on 429/502/503/504 and on network failures, and
 * carries the login only to the board itself, never to the host its files are on (Danbooru's CDN).
 */

/** The board will not let this login (or a visitor) read it: the whole import stops. */
export class BoardRefusedError extends SourceError {
  override name = 'BoardRefusedError';
}

/** An answer that is not a success and is not asked again (or no longer: the retries ran out). */
export class HttpStatusError extends SourceError {
  override name = 'HttpStatusError';
  constructor(
    readonly status: number,
    readonly url: string,
    detail: string,
  ) {
    super(`HTTP ${status} from ${url}${detail ? `: ${detail}` : ''}`);
  }
}

/** The connection failed or the body was cut short: worth asking again. */
class NetworkError extends Error {
  override name = 'NetworkError';
}

export type Params = Record<string, string | number | undefined>;

export interface HttpOptions {
  /** The board's API root, without a trailing slash (`http://host/danbooru`). */
  base: URL;
  login?: string;
  apiKey?: string;
  inFlight: number;
  fetch: typeof fetch;
  userAgent: string;
  maxRetries: number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  now: () => number;
}

export interface DanbooruHttp {
  /** The board's JSON at `path` (after the base) with `params`; null when the board has no such endpoint (404). */
  json(path: string, params: Params, signal?: AbortSignal): Promise<unknown>;
  /** Streams `url` into `dest`, hashing on the way; `dest` is removed when it fails. */
  download(url: URL, dest: string, signal?: AbortSignal): Promise<{ md5: string; bytes: number }>;
}

/** What an error answer says, for messages: Danbooru's `message` (or `error`), else the start of its text. */
async function errorDetail(res: Response): Promise<string> {
  const text = await res.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { message?: unknown; error?: unknown };
    const said = body?.message ?? body?.error;
    if (typeof said === 'string') return said.slice(0, 300);
  } catch {}
  return text.replace(/\s+/g, ' ').trim().slice(0, 120);
}

export function danbooruHttp(o: HttpOptions): DanbooruHttp {
  const slots = semaphore(o.inFlight);
  const authorization = o.login ? `Basic ${Buffer.from(`${o.login}:${o.apiKey ?? ''}`).toString('base64')}` : null;
  const toBoard = (url: URL) => url.origin === o.base.origin;

  async function send(url: URL, accept: string, signal: AbortSignal | undefined): Promise<Response> {
    const headers: Record<string, string> = { 'user-agent': o.userAgent, accept };
    if (authorization && toBoard(url)) headers.authorization = authorization;
    try {
      return await o.fetch(url, { headers, signal });
    } catch (err) {
      if (signal?.aborted) throw err;
      // undici says only "fetch failed"; what failed (ECONNREFUSED, a TLS error, ...) is its cause.
      const cause = (err as Error)?.cause;
      throw new NetworkError(`${url}: ${cause instanceof Error ? cause.message : ((err as Error)?.message ?? err)}`);
    }
  }

  /** 401 and 403 from the board mean the login (or its absence): no later request would fare better. */
  function refused(status: number, url: URL, detail: string): BoardRefusedError {
    const why = o.login
      ? 'the board refused the login: check --login and --api-key'
      : 'the board refused to answer without a login: give --login and --api-key';
    return new BoardRefusedError(`${why} (HTTP ${status} from ${url}${detail ? `: ${detail}` : ''})`);
  }

  async function withRetries<T>(url: URL, accept: string, signal: AbortSignal | undefined, read: (res: Response) => Promise<T>): Promise<T> {
    for (let tries = 0; ; tries++) {
      let wait: number;
      const release = await slots.acquire();
      try {
        signal?.throwIfAborted();
        const res = await send(url, accept, signal);
        if (res.ok) return await read(res);
        const detail = await errorDetail(res);
        if ((res.status === 401 || res.status === 403) && toBoard(url)) throw refused(res.status, url, detail);
        if (!RETRY_STATUSES.has(res.status) || tries >= o.maxRetries) throw new HttpStatusError(res.status, String(url), detail);
        wait = waitAfter(res.status, res.headers.get('retry-after'), tries, o.now());
      } catch (err) {
        if (!(err instanceof NetworkError) || signal?.aborted) throw err;
        if (tries >= o.maxRetries) throw new SourceError(`${err.message} (tried ${tries + 1} times)`);
        wait = backoff(tries);
      } finally {
        // The slot is not held while waiting: the wait is for this request, not for the others.
        release();
      }
      await o.sleep(wait, signal);
    }
  }

  function urlOf(path: string, params: Params): URL {
    const url = new URL(`${o.base.pathname.replace(/\/+$/, '')}${path}`, o.base.origin);
    for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, String(v));
    return url;
  }

  async function json(path: string, params: Params, signal?: AbortSignal): Promise<unknown> {
    const url = urlOf(path, params);
    try {
      const text = await withRetries(url, 'application/json', signal, (res) =>
        res.text().catch((err) => {
          throw new NetworkError(`${url}: the answer was cut short (${(err as Error)?.message ?? err})`);
        }),
      );
      try {
        return JSON.parse(text);
      } catch {
        throw new SourceError(`${url} did not answer JSON: is it a Danbooru-compatible API?`);
      }
    } catch (err) {
      if (err instanceof HttpStatusError && err.status === 404) return null;
      throw err;
    }
  }

  async function stream(res: Response, url: URL, dest: string) {
    const hash = createHash('md5');
    let bytes = 0;
    const file = await fs.open(dest, 'w');
    const reader = res.body?.getReader();
    try {
      if (!reader) throw new NetworkError(`${url}: the answer has no body`);
      for (;;) {
        const chunk = await reader.read().catch((err) => {
          throw new NetworkError(`${url}: the download was cut short (${(err as Error)?.message ?? err})`);
        });
        if (chunk.done) break;
        hash.update(chunk.value);
        bytes += chunk.value.byteLength;
        await file.write(chunk.value);
      }
    } catch (err) {
      await reader?.cancel().catch(() => {});
      throw err;
    } finally {
      await file.close();
    }
    const length = res.headers.get('content-length');
    if (length !== null && /^\d+$/.test(length) && Number(length) !== bytes) {
      throw new NetworkError(`${url}: ${bytes} bytes arrived of ${length}`);
    }
    return { md5: hash.digest('hex'), bytes };
  }

  async function download(url: URL, dest: string, signal?: AbortSignal) {
    try {
      // Each try opens `dest` anew (truncating it): a retry never appends to a cut-short body.
      return await withRetries(url, '*/*', signal, (res) => stream(res, url, dest));
    } catch (err) {
      await fs.rm(dest, { force: true });
      throw err;
    }
  }

  return { json, download };
}
