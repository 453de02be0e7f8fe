// The cost curve (issue 59 point 4): one table of every scenario across runs at several sizes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { costCurve } from '../bench/cost-curve.ts';
import type { Report } from '../bench/report.ts';

/** A report of a run at `posts` posts with the scenarios given as [name, cpu ms, p99, share]. */
function report(posts: number, scenarios: [string, number, number, number][], readySeconds: number): Report {
  return {
    dataset: { summary: { posts }, bytes: posts * 3_400 },
    scenarios: scenarios.map(([name, cpu, p99, ratio]) => ({
      name,
      peakRssBytes: 300 * 2 ** 20,
      runs: [{ connections: 16, ratio, ours: { serverCpuMsPerRequest: cpu, latencyMs: { p99 } } }],
    })),
    upload: { latencyMs: { p99: 41.6 } },
    server: { peakRssBytes: 512 * 2 ** 20, readySeconds },
  } as unknown as Report;
}

test('runs are ordered by size, every scenario is a row, and a scenario a run lacks is a dash', () => {
  const table = costCurve([
    report(10_000_000, [['newest', 0.4, 30, 0.21]], 12.5),
    report(
      100_000,
      [
        ['newest', 0.2, 12, 0.5],
        ['search', 0.3, 20, 0.3],
      ],
      2.25,
    ),
  ]);
  const rows = table.trim().split('\n');
  assert.equal(rows[0], '| Scenario | 100k | 10M |');
  assert.equal(rows[2], '| newest | 0.20 / 12 / 50% / 300 | 0.40 / 30 / 21% / 300 |');
  assert.equal(rows[3], '| search | 0.30 / 20 / 30% / 300 | - |');
  assert.ok(rows.includes('| uploads | p99 42 ms | p99 42 ms |'));
  assert.ok(rows.includes('| start to /readyz (s) | 2.3 | 12.5 |'));
  assert.ok(rows.includes('| dataset on disk (GB) | 0.3 | 34.0 |'));
});
