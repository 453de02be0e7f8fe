// The web client is typed from the server's OpenAPI document (web/src/api/schema.d.ts). A route
// changed without `npm run web:types` leaves the client typed against an API that is gone, and
// `npm run web:check` passes on the stale file: so the types are made again, into a temporary
// folder, by the command itself (web/scripts/api-types.ts), and compared.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '..');
const COMMITTED = path.join(ROOT, 'web', 'src', 'api', 'schema.d.ts');

/** The first line where two texts part, with both versions of it, to say where to look. */
function firstDifference(made: string, committed: string): string {
  const [a, b] = [made.split('\n'), committed.split('\n')];
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return `line ${i + 1}: the server's document makes ${JSON.stringify(a[i] ?? '(end of file)')}, the committed file has ${JSON.stringify(b[i] ?? '(end of file)')}`;
}

test("web/src/api/schema.d.ts is what `npm run web:types` makes of the server's OpenAPI document", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ib-web-api-types-'));
  try {
    const made = path.join(dir, 'schema.d.ts');
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env.NODE_TEST_CONTEXT;
    const run = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'web', 'scripts', 'api-types.ts'), made], {
      cwd: ROOT,
      env,
      encoding: 'utf8',
      timeout: 120_000,
    });
    assert.equal(run.status, 0, `web/scripts/api-types.ts failed:\n${run.stdout}\n${run.stderr}`);
    const [fresh, committed] = [fs.readFileSync(made, 'utf8'), fs.readFileSync(COMMITTED, 'utf8')];
    assert.ok(
      fresh === committed,
      `web/src/api/schema.d.ts is not what the server's OpenAPI document makes: run \`npm run web:types\` and commit the file (then \`npm run web:check\`). First difference at ${firstDifference(fresh, committed)}`,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
