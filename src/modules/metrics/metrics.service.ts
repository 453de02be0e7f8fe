/**
 * The numbers GET /metrics gives (docs/deploy.md, "Metrics"), in one prom-client registry an app
 * (and, with WORKERS > 1, one the main thread: thread-metrics.ts). Counters and histograms move
 * as things happen (the request hook, deps.metrics); gauges are read when a scrape asks.
 */
import { timingSafeEqual } from 'node:crypto';
import { collectDefaultMetrics, Counter, Gauge, Histogram, type MetricObjectWithValues, type MetricValue, Registry } from 'prom-client';
import type { MetricsRecorder } from '../../core/metrics.ts';
import { sha256Hex } from '../../core/tokens.ts';
import type { Database } from '../../db/engine.ts';
import { queueDepth } from '../../jobs/jobs.repo.ts';
import { jobKindNames } from '../../jobs/kinds.ts';
import type { MediaStore } from '../../storage/media-store.ts';
import type { Readiness, ReadinessChecks } from '../health/health.service.ts';
import { countedStore } from './counted-store.ts';
import { registerHistogram, Tally } from './tally.ts';

/** Every metric of ours starts so; Node's and the process's are prom-client's defaults (`nodejs_`, `process_`). */
export const PREFIX = 'imageboard_';

/**
 * Seconds. Few buckets: each is a series a route, and an observation walks them. A list page takes
 * 1-3 ms, the bench's p99 target is 50 ms (docs/benchmarks.md), the p99 alert's threshold 1 s.
 */
const REQUEST_BUCKETS = [0.005, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10];
/** A search in the kept sets takes microseconds, one left to SQL milliseconds to the time budget (2 s). */
const SEARCH_BUCKETS = [0.001, 0.005, 0.025, 0.1, 0.5, 2];
/** A job runs from a second (an alias on a few posts) to an hour (a retag of millions). */
const JOB_BUCKETS = [1, 10, 60, 600, 3600];

export type MetricsJson = MetricObjectWithValues<MetricValue<string>>[];

/** Where the gauges read from, each optional: the main thread of WORKERS > 1 has no app, a serving thread no queue of its own. Read at each scrape. */
export interface MetricSources {
  /** Connections in use, idle and waited for (every pool of a process adds up). */
  db?: Database;
  /** The jobs table's queue: read once a process (by its main thread with WORKERS > 1), it is the board's, not a thread's. */
  queue?: Database;
  /** The app's open event streams. */
  openStreams?: () => number;
  /** The kept sets' bytes by kind, where they are kept (an app with its own engine core, or the main thread sharing one). */
  keptBytes?: () => Promise<Record<string, number>>;
  /** The app's readiness checks, run at each scrape. */
  readiness?: ReadinessChecks;
}

export interface AppMetrics {
  /** Handed to search, jobs, uploads and rate limits as deps.metrics. */
  recorder: MetricsRecorder;
  /** One answered request: its method, route pattern (`/api/posts/:id`, `unmatched` for none), status and time. */
  request(method: string, route: string, status: number, seconds: number): void;
  /** The media store, its failed operations counted (missing files aside). */
  counted(store: MediaStore): MediaStore;
  /** Adds the gauges of these sources (once each). */
  watch(sources: MetricSources): void;
  /** What this registry holds, as plain data (for the main thread to add up: thread-metrics.ts). */
  json(): Promise<MetricsJson>;
  /** What this registry holds, in Prometheus' text format. */
  text(): Promise<string>;
  contentType: string;
}

/** A registry with the board's metrics and Node's; `store` is where media live (local: `disk`, s3: `bucket`), as storage errors are labelled. */
export function createMetrics(store: 'disk' | 'bucket'): AppMetrics {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry });

  // Every request and search page adds to these (tally.ts); the registry reads them when scraped.
  const requestTimes = new Tally(['route', 'method'], REQUEST_BUCKETS);
  const searchTimes = new Tally(['strategy'], SEARCH_BUCKETS);
  new Counter({
    name: `${PREFIX}http_requests_total`,
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers,
    collect() {
      this.reset();
      for (const s of requestTimes.all()) for (const [status, n] of s.statuses) this.inc({ ...s.labels, status }, n);
    },
  });
  registerHistogram(
    requestTimes,
    `${PREFIX}http_request_duration_seconds`,
    'Time from a request received to its answer sent, by method and route pattern',
    registers,
  );
  registerHistogram(
    searchTimes,
    `${PREFIX}search_duration_seconds`,
    'Pages of the post search, by the strategy that answered (sets, columns, driven, sql), and their time',
    registers,
  );
  const jobs = new Histogram({
    name: `${PREFIX}job_duration_seconds`,
    help: 'Background jobs that ended (done or failed), by kind, and how long this process worked on them',
    labelNames: ['kind'] as const,
    buckets: JOB_BUCKETS,
    registers,
  });
  const jobFailures = new Counter({
    name: `${PREFIX}job_failures_total`,
    help: 'Background jobs that failed, by kind',
    labelNames: ['kind'] as const,
    registers,
  });
  const uploads = new Counter({
    name: `${PREFIX}uploads_total`,
    help: 'Uploads stored (published or held for approval), by kind',
    labelNames: ['kind'] as const,
    registers,
  });
  const uploadBytes = new Counter({
    name: `${PREFIX}upload_bytes_total`,
    help: 'Bytes uploads stored (the original, its thumbnail and preview), by kind',
    labelNames: ['kind'] as const,
    registers,
  });
  const refusals = new Counter({
    name: `${PREFIX}rate_limit_refusals_total`,
    help: 'Requests refused by the rate limits (429), by route pattern',
    labelNames: ['route'] as const,
    registers,
  });
  const storageErrors = new Counter({
    name: `${PREFIX}storage_errors_total`,
    help: 'Failed operations of the media store (disk or bucket), a missing file aside',
    labelNames: ['store'] as const,
    registers,
  });
  // Present at 0 from the start: an alert on increase() sees the first failure only if the series was there before it.
  for (const kind of jobKindNames()) jobFailures.inc({ kind }, 0);
  for (const kind of ['image', 'video']) {
    uploads.inc({ kind }, 0);
    uploadBytes.inc({ kind }, 0);
  }
  storageErrors.inc({ store }, 0);

  return {
    recorder: {
      searched: (strategy, seconds) => searchTimes.series(strategy).observe(seconds),
      jobEnded: (kind, failed, seconds) => {
        jobs.observe({ kind }, seconds);
        if (failed) jobFailures.inc({ kind });
      },
      uploaded: (kind, bytes) => {
        uploads.inc({ kind });
        uploadBytes.inc({ kind }, bytes);
      },
      rateLimited: (route) => refusals.inc({ route }),
    },
    request: (method, route, status, seconds) => {
      const series = requestTimes.series(route, method);
      series.observe(seconds);
      series.statuses.set(status, (series.statuses.get(status) ?? 0) + 1);
    },
    counted: (media) => countedStore(media, () => storageErrors.inc({ store })),
    watch: (sources) => gauges(sources, registers),
    json: () => registry.getMetricsAsJSON(),
    text: () => registry.metrics(),
    contentType: registry.contentType,
  };
}

/** The gauges, each read from its source when a scrape asks (none is kept current between scrapes). */
function gauges(s: MetricSources, registers: Registry[]): void {
  const { db, queue, openStreams, keptBytes, readiness } = s;
  if (db) {
    new Gauge({
      name: `${PREFIX}db_connections`,
      help: "Database connections by state: in_use, idle (open and free), waiting (callers queued for one); SQLite's one connection a thread",
      labelNames: ['state'] as const,
      registers,
      collect() {
        const use = db.connections();
        if (!use) return;
        this.set({ state: 'in_use' }, use.inUse);
        this.set({ state: 'idle' }, use.idle);
        this.set({ state: 'waiting' }, use.waiting);
      },
    });
    new Gauge({
      name: `${PREFIX}db_connections_max`,
      help: 'Database connections the pools may open (DATABASE_POOL_SIZE a pool on PostgreSQL)',
      registers,
      collect() {
        this.set(db.connections()?.max ?? 0);
      },
    });
  }
  if (queue) {
    new Gauge({
      name: `${PREFIX}jobs`,
      help: 'Background jobs waiting (queued) or under way (running), by kind: the queue, board-wide',
      labelNames: ['kind', 'state'] as const,
      registers,
      async collect() {
        // A database that is away or busy leaves the queue out of this scrape, not the scrape out (readiness says why).
        const depth = await answerWithin(QUEUE_READ_MS, queueDepth(queue));
        this.reset();
        if (!depth) return;
        for (const kind of jobKindNames()) for (const state of ['queued', 'running']) this.set({ kind, state }, 0);
        for (const row of depth) this.set({ kind: row.kind, state: row.state }, row.jobs);
      },
    });
  }
  if (openStreams) {
    new Gauge({
      name: `${PREFIX}event_streams_open`,
      help: 'Open streams of GET /api/events',
      registers,
      collect() {
        this.set(openStreams());
      },
    });
  }
  if (keptBytes) {
    new Gauge({
      name: `${PREFIX}search_sets_bytes`,
      help: "Bytes the search's kept sets and lookups hold, by kind (every copy: with SEARCH_SETS=each, one a serving thread)",
      labelNames: ['kind'] as const,
      registers,
      async collect() {
        for (const [kind, bytes] of Object.entries(await keptBytes())) this.set({ kind }, bytes);
      },
    });
  }
  if (readiness) {
    // Both gauges are read at once by a scrape: they share one run of the checks.
    let running: Promise<Readiness> | null = null;
    const now = () => (running ??= readiness.run().finally(() => (running = null)));
    new Gauge({
      name: `${PREFIX}ready`,
      help: 'Whether /readyz answers 200: 1 ready, 0 not ready or draining (the lowest of the serving threads)',
      aggregator: 'min',
      registers,
      async collect() {
        this.set((await now()).status === 'ok' ? 1 : 0);
      },
    });
    new Gauge({
      name: `${PREFIX}readiness_check`,
      help: 'Each readiness check of /readyz: 1 passing, 0 failing (the lowest of the serving threads)',
      labelNames: ['check'] as const,
      aggregator: 'min',
      registers,
      async collect() {
        // Draining runs no checks: the last answers stay.
        for (const [check, result] of Object.entries((await now()).checks)) this.set({ check }, result.ok ? 1 : 0);
      },
    });
  }
}

/** How long a scrape waits for the jobs table (a readiness check waits as long). */
const QUEUE_READ_MS = 2_000;

/** What `work` gives, or null when it fails or takes longer than `ms`. */
export async function answerWithin<T>(ms: number, work: Promise<T>): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), ms);
  });
  try {
    return await Promise.race([work.catch(() => null), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Whether an Authorization header carries the bearer token (compared in constant time). */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const m = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m) return false;
  // Hashes have one length, so the comparison says nothing of the token's.
  return timingSafeEqual(Buffer.from(sha256Hex(m[1]), 'hex'), Buffer.from(sha256Hex(token), 'hex'));
}
