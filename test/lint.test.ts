// Biome (biome.jsonc) checks the format and the lint rules of the server, tests, bench and web/:
// no error and no warning, so every file reads the same and a rule's exception says why beside it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '..');

test('biome ci: formatted, and no lint error or warning', () => {
  const run = spawnSync(path.join(ROOT, 'node_modules', '.bin', 'biome'), ['ci', '--error-on-warnings', '--colors=off'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 120_000,
  });
  assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}\nRun \`npm run format\` and \`npm run lint\`.`);
});
