/**
 * WORKERS > 1: each serving thread has its own registry (its requests, searches, jobs, pools),
 * and a scrape must cover them all. The main thread asks every thread for its registry as plain
 * data (registry.getMetricsAsJSON(), over the thread's message port: src/threads.ts), adds its own
 * (the process's CPU and memory, the job queue, the shared search sets and their pool) and sums
 * them with prom-client's AggregatorRegistry: counters and histograms add up, gauges by their
 * aggregator (readiness: the lowest). A serving thread asked for /metrics gets this text from the
 * main thread; a METRICS_PORT listener is the main thread's own.
 */
import { AggregatorRegistry, type Registry } from 'prom-client';
import { type AppMetrics, answerWithin, type MetricsJson, PREFIX } from './metrics.service.ts';

/** What a serving thread answers the main thread (src/threads.ts, ThreadAnswers). */
export interface ThreadMetrics {
  metrics(): Promise<MetricsJson>;
}

/** A thread that has not answered in this long is left out of the scrape (and counted as such), so one stuck thread does not stall it. */
const THREAD_WAIT_MS = 5_000;

/** The main thread's scrape: its own registry and every serving thread's, added up, as text. */
export function gatherThreads(main: AppMetrics, threads: ThreadMetrics[]): () => Promise<string> {
  return async () => {
    const [own, ...theirs] = await Promise.all([main.json(), ...threads.map((t) => answerWithin(THREAD_WAIT_MS, t.metrics()))]);
    return sumOfThreads(own, theirs).metrics();
  };
}

/**
 * One registry of the main thread's metrics and the threads' (null: a thread that did not
 * answer). `process_*` are the whole process's, read in every thread alike: taken from the main
 * thread alone. `nodejs_*` (heap, event loop, GC) are each thread's own: kept apart by a `thread`
 * label (`main`, `0`, `1`...). The board's own are summed.
 */
export function sumOfThreads(main: MetricsJson, threads: (MetricsJson | null)[]): Registry {
  const parts = [ofThread(main, 'main'), ...threads.map((t, i) => (t ? ofThread(t, String(i)) : []))];
  const answered = threads.filter((t) => t !== null).length;
  parts.push([
    gauge(`${PREFIX}serving_threads`, 'Threads serving the port (WORKERS)', threads.length),
    gauge(`${PREFIX}serving_threads_scraped`, 'Serving threads whose numbers are in this answer (one that did not answer in 5 s is left out)', answered),
  ]);
  return AggregatorRegistry.aggregate(parts);
}

function ofThread(metrics: MetricsJson, thread: string): MetricsJson {
  const whole = thread === 'main';
  return metrics
    .filter((m) => whole || !m.name.startsWith('process_'))
    .map((m) => ({
      ...m,
      // The process's start time is left out when summing processes (prom-client's 'omit'); here one thread gives it.
      aggregator: m.aggregator === 'omit' ? 'first' : m.aggregator,
      values: m.name.startsWith('nodejs_') ? m.values.map((v) => ({ ...v, labels: { ...v.labels, thread } })) : m.values,
    }));
}

function gauge(name: string, help: string, value: number): MetricsJson[number] {
  return { name, help, type: 'gauge', aggregator: 'sum', values: [{ value, labels: {} }] } as unknown as MetricsJson[number];
}
