import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Histogram, Registry } from 'prom-client';
import { registerHistogram, Tally } from './tally.ts';

test("a tally prints what prom-client's histogram prints for the same observations, bounds included in their bucket", async () => {
  const bounds = [0.005, 0.025, 0.1, 1];
  const ours = new Registry();
  const theirs = new Registry();
  const tally = new Tally(['route', 'method'], bounds);
  registerHistogram(tally, 'x_seconds', 'Times', [ours]);
  const reference = new Histogram({ name: 'x_seconds', help: 'Times', labelNames: ['method', 'route'], buckets: bounds, registers: [theirs] });
  const seen: [string, string, number][] = [
    ['/a', 'GET', 0.005],
    ['/a', 'GET', 0.0051],
    ['/a', 'GET', 3],
    ['/b/:id', 'POST', 0.1],
    ['/a', 'HEAD', 0],
    ['/b/:id', 'POST', 0.02],
  ];
  for (const [route, method, v] of seen) {
    tally.series(route, method).observe(v);
    reference.observe({ method, route }, v);
  }
  const lines = async (r: Registry) => (await r.metrics()).split('\n').sort();
  assert.deepEqual(await lines(ours), await lines(theirs));
  // What the main thread adds up (thread-metrics.ts): the same values (exemplars are not kept).
  const json = async (r: Registry) =>
    (await r.getMetricsAsJSON()).map((m) => ({
      ...m,
      values: m.values.map((v) => JSON.stringify([(v as { metricName?: string }).metricName, v.labels, v.value])).sort(),
    }));
  assert.deepEqual(await json(ours), await json(theirs));
});
