import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

// `npm ci` on the oldest Node that package.json's engines allows must not warn EBADENGINE: every
// locked package's engines.node has to admit it. A small range check instead of the semver package,
// which is only here as somebody else's dependency.

type Version = [number, number, number];

const ROOT = path.resolve(import.meta.dirname, '..');
const readJson = (file: string) => JSON.parse(fs.readFileSync(path.join(ROOT, file), 'utf8'));

function compare(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** "20", "20.x", "20.19", "20.19.0" -> the lowest version and the first above the range it names. */
function partial(text: string): { low: Version; high: Version | null } {
  const parts = text
    .replace(/^v/, '')
    .split('.')
    .filter((p) => p !== '' && p !== 'x' && p !== 'X' && p !== '*')
    .map(Number);
  const low: Version = [parts[0] ?? 0, parts[1] ?? 0, parts[2] ?? 0];
  if (parts.length === 0) return { low, high: null };
  if (parts.length === 1) return { low, high: [parts[0] + 1, 0, 0] };
  if (parts.length === 2) return { low, high: [parts[0], parts[1] + 1, 0] };
  return { low, high: [parts[0], parts[1], parts[2] + 1] };
}

function satisfiesComparator(v: Version, comparator: string): boolean {
  const [, op, rest] = /^(>=|<=|>|<|\^|~|=)?(.*)$/.exec(comparator)!;
  const { low, high } = partial(rest);
  switch (op) {
    case '>=':
      return compare(v, low) >= 0;
    case '>':
      return high === null ? false : compare(v, high) >= 0;
    case '<':
      return compare(v, low) < 0;
    case '<=':
      return high === null ? true : compare(v, high) < 0;
    case '^': {
      const top: Version = low[0] > 0 ? [low[0] + 1, 0, 0] : low[1] > 0 ? [0, low[1] + 1, 0] : [0, 0, low[2] + 1];
      return compare(v, low) >= 0 && compare(v, top) < 0;
    }
    case '~':
      return compare(v, low) >= 0 && compare(v, [low[0], low[1] + 1, 0]) < 0;
    default:
      return compare(v, low) >= 0 && (high === null || compare(v, high) < 0);
  }
}

/** Whether a version meets an npm range such as "^20.19.0 || >=22.12.0" or ">= 0.8". */
function satisfies(version: string, range: string): boolean {
  const v = partial(version).low;
  return range.split('||').some((alternative) => {
    const comparators = alternative
      .trim()
      .replace(/(>=|<=|>|<|\^|~|=)\s+/g, '$1')
      .split(/\s+/)
      .filter(Boolean);
    return comparators.every((c) => satisfiesComparator(v, c));
  });
}

test('the range check reads the forms the lock file uses', () => {
  assert.ok(satisfies('20.19.0', '^20.19.0 || >=22.12.0'));
  assert.ok(!satisfies('20.9.0', '^20.19.0 || >=22.12.0'));
  assert.ok(satisfies('20.19.0', '20 || >=22'));
  assert.ok(satisfies('20.19.0', '>= 0.8'));
  assert.ok(satisfies('20.19.0', '10.* || >= 12.*'));
  assert.ok(satisfies('20.19.0', '20.x || 22.x'));
  assert.ok(!satisfies('20.19.0', '>=22'));
  assert.ok(!satisfies('21.0.0', '18 || 20 || >=22'));
  assert.ok(satisfies('20.19.0', '*'));
});

test('package.json engines names the Node that Vite 8 needs, and every locked package accepts it', () => {
  const engines: string = readJson('package.json').engines.node;
  assert.match(engines, /^>=\d+\.\d+$/, 'engines.node is one lower bound');
  const oldest = engines.slice(2);
  assert.ok(satisfies(oldest, '>=20.19'), 'Vite 8 needs Node 20.19 or newer');
  const lock = readJson('package-lock.json') as { packages: Record<string, { version?: string; engines?: { node?: string } | string[] }> };
  const refusing = Object.entries(lock.packages)
    .filter(([, p]) => p.engines && !Array.isArray(p.engines) && p.engines.node && !satisfies(oldest, p.engines.node))
    .map(([name, p]) => `${name.replace(/^.*node_modules\//, '')}@${p.version} wants node ${(p.engines as { node: string }).node}`);
  assert.deepEqual(refusing, [], `packages that would warn EBADENGINE on Node ${oldest}`);
});
