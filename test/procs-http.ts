// `app.inject()` over real HTTP (test/procs.ts): the same options and the same response as
// Fastify's inject (light-my-request), so a suite runs unchanged against server processes.
import http from 'node:http';
import type { Readable } from 'node:stream';

type HeaderValue = string | string[] | number | undefined;

export interface InjectOptions {
  method?: string;
  url?: string | { pathname: string; query?: Record<string, string> };
  path?: string;
  query?: string | Record<string, string | string[]>;
  headers?: Record<string, HeaderValue>;
  payload?: unknown;
  body?: unknown;
  cookies?: Record<string, string>;
  remoteAddress?: string;
}

export interface Cookie {
  name: string;
  value: string;
  [attribute: string]: unknown;
}

export interface InjectResponse {
  statusCode: number;
  statusMessage: string;
  headers: http.IncomingHttpHeaders;
  rawPayload: Buffer;
  body: string;
  payload: string;
  json(): any;
  cookies: Cookie[];
}

/**
 * The loopback address a test's client address (inject's remoteAddress) is sent from: 127.b.c.d
 * for a.b.c.d, so that different clients stay different and one client stays one (the proxy
 * connects to the servers from the same address). A server sees that address, not the one named.
 */
export function loopbackFor(address: string): string {
  const v4 = /^\d+\.(\d+\.\d+\.\d+)$/.exec(address);
  if (!v4) throw new Error(`procs mode: inject({ remoteAddress: '${address}' }): only IPv4 client addresses can be sent from loopback`);
  return `127.${v4[1]}`;
}

/** The path and query as inject makes them: resolved as a URL, `query` merged in. */
function requestPath(o: InjectOptions): string {
  const given = o.url ?? o.path ?? '/';
  const url =
    typeof given === 'string'
      ? new URL(given.startsWith('//') ? `http://localhost${given}` : given, 'http://localhost')
      : Object.assign(new URL('http://localhost'), given);
  const query =
    typeof o.query === 'string' ? Object.fromEntries(new URLSearchParams(o.query)) : { ...(typeof given === 'object' ? given.query : {}), ...o.query };
  for (const [key, value] of Object.entries(query)) {
    url.searchParams.delete(key);
    for (const v of Array.isArray(value) ? value : [value]) url.searchParams.append(key, v);
  }
  return url.pathname + url.search;
}

/**
 * Sends one request on a connection of its own (so a round-robin proxy in front hands each request
 * to the next process) and reads the whole answer.
 */
export function injectOverHttp(port: number, options: InjectOptions | string): Promise<InjectResponse> {
  const o: InjectOptions = typeof options === 'string' ? { url: options } : options;
  const localAddress = o.remoteAddress ? loopbackFor(o.remoteAddress) : undefined;
  const headers: Record<string, HeaderValue> = { 'user-agent': 'lightMyRequest', host: 'localhost:80' };
  for (const [k, v] of Object.entries(o.headers ?? {})) if (v !== undefined) headers[k.toLowerCase()] = v;
  if (o.cookies)
    headers.cookie = Object.entries(o.cookies)
      .map(([k, v]) => `${k}=${v}`)
      .join('; ');
  let payload = o.payload ?? o.body;
  const streamed = payload !== undefined && payload !== null && typeof (payload as Readable).pipe === 'function';
  if (payload !== undefined && payload !== null && !streamed && typeof payload !== 'string' && !Buffer.isBuffer(payload)) {
    payload = JSON.stringify(payload);
    headers['content-type'] ??= 'application/json';
  }
  if ((typeof payload === 'string' || Buffer.isBuffer(payload)) && payload.length > 0 && headers['content-length'] === undefined) {
    headers['content-length'] = Buffer.byteLength(payload);
  }
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        localAddress,
        method: (o.method ?? 'GET').toUpperCase(),
        path: requestPath(o),
        headers: headers as http.OutgoingHttpHeaders,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => resolve(response(res, Buffer.concat(chunks))));
      },
    );
    req.on('error', reject);
    if (streamed) {
      (payload as Readable).on('error', (err) => req.destroy(err));
      (payload as Readable).pipe(req);
    } else req.end(payload as string | Buffer | undefined);
  });
}

function response(res: http.IncomingMessage, raw: Buffer): InjectResponse {
  const body = raw.toString('utf8');
  return {
    statusCode: res.statusCode ?? 0,
    statusMessage: res.statusMessage ?? '',
    headers: res.headers,
    rawPayload: raw,
    body,
    payload: body,
    json: () => JSON.parse(body),
    cookies: (res.headers['set-cookie'] ?? []).map(parseCookie),
  };
}

/** One Set-Cookie header as light-my-request gives it: name, value and its attributes (camelCase). */
function parseCookie(header: string): Cookie {
  const [pair, ...attributes] = header.split(';');
  const eq = pair.indexOf('=');
  const cookie: Cookie = { name: pair.slice(0, eq).trim(), value: decodeURIComponent(pair.slice(eq + 1).trim()) };
  for (const attribute of attributes) {
    const [key, ...rest] = attribute.split('=');
    const value = rest.join('=').trim();
    const name = key.trim().toLowerCase();
    if (name === 'expires') cookie.expires = new Date(value);
    else if (name === 'max-age') cookie.maxAge = Number(value);
    else if (name === 'httponly') cookie.httpOnly = true;
    else if (name === 'secure') cookie.secure = true;
    else if (name === 'samesite') cookie.sameSite = value;
    else if (name === 'partitioned') cookie.partitioned = true;
    else cookie[name] = value;
  }
  return cookie;
}
