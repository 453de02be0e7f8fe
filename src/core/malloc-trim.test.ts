import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { MALLOC_TRIM_ADDON as ADDON } from '../../scripts/build-native.mjs';
import { loadMallocTrim, onGlibc, startMallocTrim } from './malloc-trim.ts';

/** Where scripts/build-native.mjs builds it; elsewhere the server runs without it. */
const buildable = onGlibc();

test('npm run build made the addon where it can, and it loads; a missing one is null, not an error', () => {
  assert.equal(
    fs.existsSync(ADDON),
    buildable,
    buildable ? 'Linux with glibc: `npm run build` builds native/build/malloc-trim.node' : 'no glibc: nothing is built',
  );
  const trim = loadMallocTrim(ADDON);
  assert.equal(typeof trim === 'function', buildable);
  if (trim) assert.equal(typeof trim(), 'boolean');
  assert.equal(loadMallocTrim(path.join(path.dirname(ADDON), 'absent.node')), null);
});

// Small blocks (1,000 bytes, under every mmap threshold) come from malloc's heap. One kept in 128
// holds the heap's top, so freeing the rest gives nothing back until the free pages between are
// trimmed.
const FRAGMENTS = `
const { trim } = require(process.env.ADDON);
const mb = () => process.memoryUsage.rss() / 2 ** 20;
const base = mb();
let all = [];
const kept = [];
for (let i = 0; i < 65536; i++) { const b = Buffer.alloc(1000, 1); all.push(b); if (i % 128 === 0) kept.push(b); }
all = null;
for (let i = 0; i < 3; i++) gc();
setTimeout(() => {
  gc();
  const freed = mb();
  trim();
  console.log(JSON.stringify({ base, freed, trimmed: mb(), kept: kept.length }));
}, 100);`;

test('trimming gives back the pages of blocks freed between live ones (where it is built)', () => {
  // Elsewhere the first test checks that nothing is built and nothing loads.
  if (!buildable) return;
  const out = execFileSync(process.execPath, ['--expose-gc', '-e', FRAGMENTS], { env: { ...process.env, ADDON }, encoding: 'utf8', timeout: 30_000 });
  const { base, freed, trimmed } = JSON.parse(out) as { base: number; freed: number; trimmed: number };
  assert.ok(freed - base > 40, `freed blocks stay resident until trimmed: ${base.toFixed(0)} -> ${freed.toFixed(0)} MB`);
  assert.ok(freed - trimmed > 40, `trimming gave back ${(freed - trimmed).toFixed(0)} MB of ~64 MB freed`);
});

test('the timer trims every interval until stopped, and 0 turns it off', async () => {
  let calls = 0;
  const counting = () => {
    calls++;
    return true;
  };
  assert.equal(startMallocTrim(0, counting), null);
  assert.equal(startMallocTrim(10, null), null);
  const trimming = startMallocTrim(10, counting)!;
  // However busy the machine, three ticks of 10 ms come well within 5 s.
  for (const until = Date.now() + 5_000; calls < 3 && Date.now() < until; ) await new Promise((r) => setTimeout(r, 5));
  trimming.stop();
  const seen = calls;
  assert.ok(seen >= 3, `trimmed ${seen} times at 10 ms`);
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(calls, seen, 'no trims once stopped');
});
