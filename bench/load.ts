import { createRequire } from 'node:module';

/** autocannon's programmatic API (it ships no types). */
const autocannon = createRequire(import.meta.url)('autocannon') as any;

export interface LoadOptions {
  /** http://127.0.0.1:port (loopback only). */
  origin: string;
  connections: number;
  durationSeconds: number;
  /** The path of each request, chosen when it is sent. */
  nextPath: () => string;
  /** Hard cap on requests, so a run is bounded in count as well as in time. */
  maxRequests?: number;
  /** Per-request timeout, seconds. */
  timeoutSeconds?: number;
  /** Ends the run before its time when aborted (e.g. once the work it runs beside is over). */
  signal?: AbortSignal;
}

export interface LoadResult {
  connections: number;
  durationSeconds: number;
  requests: number;
  requestsPerSecond: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number };
  /** non2xx + socket errors + timeouts. */
  errors: number;
  non2xx: number;
  socketErrors: number;
  timeouts: number;
  bytesPerSecond: number;
  /** CPU milliseconds the server's processes spent per request (filled in by the caller). */
  serverCpuMsPerRequest?: number;
  /** CPU milliseconds PostgreSQL's backends for the server's database spent per request (PostgreSQL runs only). */
  databaseCpuMsPerRequest?: number;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** Only loopback addresses may receive load. */
export function assertLoopback(origin: string): void {
  const host = new URL(origin).hostname;
  if (!LOOPBACK.has(host) && !host.startsWith('127.')) throw new Error(`refusing to send load to ${origin}: loopback only`);
}

/** One autocannon run: GETs with a path drawn per request, for a fixed time and at most maxRequests. */
export async function runLoad(o: LoadOptions): Promise<LoadResult> {
  assertLoopback(o.origin);
  const maxRequests = Math.max(o.connections, o.maxRequests ?? o.connections * o.durationSeconds * 20_000);
  const instance = autocannon({
    url: o.origin,
    connections: o.connections,
    duration: o.durationSeconds,
    maxOverallRequests: maxRequests,
    timeout: o.timeoutSeconds ?? 10,
    requests: [{ method: 'GET', setupRequest: (req: any) => ({ ...req, path: o.nextPath() }) }],
  });
  // Belt and braces: whatever happens inside autocannon, the run ends.
  const guard = setTimeout(() => instance.stop(), (o.durationSeconds + 2 * (o.timeoutSeconds ?? 10) + 5) * 1000);
  const stop = () => instance.stop();
  o.signal?.addEventListener('abort', stop, { once: true });
  if (o.signal?.aborted) stop();
  try {
    const r: any = await instance;
    const non2xx = Number(r.non2xx ?? 0);
    const socketErrors = Math.max(0, Number(r.errors ?? 0) - Number(r.timeouts ?? 0));
    const timeouts = Number(r.timeouts ?? 0);
    return {
      connections: o.connections,
      durationSeconds: Number(r.duration),
      requests: Number(r.requests.total),
      requestsPerSecond: Number(r.requests.total) / Math.max(0.001, Number(r.duration)),
      latencyMs: { p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, max: r.latency.max },
      errors: non2xx + socketErrors + timeouts,
      non2xx,
      socketErrors,
      timeouts,
      bytesPerSecond: Number(r.throughput.average),
    };
  } finally {
    clearTimeout(guard);
    o.signal?.removeEventListener('abort', stop);
  }
}

/** Slices a run's time is cut into (whole seconds each): 5 for runs of 10 s or more that divide evenly, else 1. */
export function sliceCount(durationSeconds: number): number {
  return durationSeconds >= 10 && durationSeconds % 5 === 0 ? 5 : 1;
}

/**
 * One result from runs that took turns with another server's (slices of one measured run):
 * requests, errors and time add up; the median of the slices' p50 and p90, the highest p99 and
 * max (a slow slice is not averaged away); CPU a request weighted by requests.
 */
export function combineLoads(parts: LoadResult[]): LoadResult {
  if (parts.length === 1) return parts[0];
  const sum = (f: (r: LoadResult) => number) => parts.reduce((a, r) => a + f(r), 0);
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
  const requests = sum((r) => r.requests);
  const durationSeconds = sum((r) => r.durationSeconds);
  const weighted = (key: 'serverCpuMsPerRequest' | 'databaseCpuMsPerRequest') =>
    parts.every((r) => r[key] !== undefined) && requests > 0 ? { [key]: sum((r) => r[key]! * r.requests) / requests } : {};
  const cpu = { ...weighted('serverCpuMsPerRequest'), ...weighted('databaseCpuMsPerRequest') };
  return {
    connections: parts[0].connections,
    durationSeconds,
    requests,
    requestsPerSecond: requests / Math.max(0.001, durationSeconds),
    latencyMs: {
      p50: median(parts.map((r) => r.latencyMs.p50)),
      p90: median(parts.map((r) => r.latencyMs.p90)),
      p99: Math.max(...parts.map((r) => r.latencyMs.p99)),
      max: Math.max(...parts.map((r) => r.latencyMs.max)),
    },
    errors: sum((r) => r.errors),
    non2xx: sum((r) => r.non2xx),
    socketErrors: sum((r) => r.socketErrors),
    timeouts: sum((r) => r.timeouts),
    bytesPerSecond: sum((r) => r.bytesPerSecond * r.durationSeconds) / Math.max(0.001, durationSeconds),
    ...cpu,
  };
}
