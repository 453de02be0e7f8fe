import type { Metric, Registry } from 'prom-client';

/**
 * Histograms the hot paths (every request, every search page) add to with a few array writes: a
 * series a label set, found through nested maps of plain label values, holds its buckets' counts.
 * prom-client's own Histogram hashes a labels object into a string, allocates a closure and looks
 * bucket bounds up as object keys at each observation. The registry reads these series only when
 * scraped, in prom-client's format (the same JSON, so threads add up as before: thread-metrics.ts).
 */
export class Series {
  /** Observations a bucket (each bucket's own, not cumulative); the last is above every bound (+Inf). */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  /** Requests by status (the requests histogram's series only). */
  readonly statuses = new Map<number, number>();

  constructor(
    readonly labels: Record<string, string>,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    const { bounds } = this;
    let i = 0;
    while (i < bounds.length && value > bounds[i]) i++;
    this.counts[i]++;
    this.sum += value;
    this.count++;
  }
}

/** Series keyed by one or two label values, made on first use. */
export class Tally {
  private readonly byFirst = new Map<string, Map<string, Series>>();

  constructor(
    private readonly names: readonly [string] | readonly [string, string],
    readonly bounds: readonly number[],
  ) {}

  series(first: string, second = ''): Series {
    let inner = this.byFirst.get(first);
    if (!inner) this.byFirst.set(first, (inner = new Map()));
    let s = inner.get(second);
    if (!s) {
      // Labels in the order of their names, as every series prints them whichever is looked up first.
      const pairs: [string, string][] = [[this.names[0], first]];
      if (this.names.length === 2) pairs.push([this.names[1], second]);
      const labels = Object.fromEntries(pairs.sort((a, b) => (a[0] < b[0] ? -1 : 1)));
      inner.set(second, (s = new Series(labels, this.bounds)));
    }
    return s;
  }

  *all(): Iterable<Series> {
    for (const inner of this.byFirst.values()) yield* inner.values();
  }

  clear(): void {
    this.byFirst.clear();
  }
}

/** Registers a tally as a histogram named `name`: what prom-client's Histogram would print for the same observations. */
export function registerHistogram(tally: Tally, name: string, help: string, registers: Registry[]): void {
  const values = () => {
    const out: { labels: Record<string, string | number>; value: number; metricName: string }[] = [];
    for (const s of tally.all()) {
      let below = 0;
      tally.bounds.forEach((le, i) => {
        below += s.counts[i];
        out.push({ labels: { le, ...s.labels }, value: below, metricName: `${name}_bucket` });
      });
      out.push({ labels: { le: '+Inf', ...s.labels }, value: s.count, metricName: `${name}_bucket` });
      out.push({ labels: { ...s.labels }, value: s.sum, metricName: `${name}_sum` });
      out.push({ labels: { ...s.labels }, value: s.count, metricName: `${name}_count` });
    }
    return out;
  };
  const metric = {
    name,
    help,
    type: 'histogram',
    aggregator: 'sum',
    get: async () => ({ name, help, type: 'histogram', aggregator: 'sum', values: values() }),
    reset: () => tally.clear(),
  };
  for (const r of registers) r.registerMetric(metric as unknown as Metric);
}
