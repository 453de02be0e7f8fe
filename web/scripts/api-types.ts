// The web client's API types from the server's OpenAPI document: `npm run web:types` writes them to
// web/src/api/schema.d.ts; test/web-api-types.test.ts writes them to a temporary file and holds the
// committed ones to them. One command for both, so the check makes what the command makes.
// Usage: api-types.ts [out.d.ts]. The document goes through a temporary folder, not the tree.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const out = path.resolve(process.argv[2] ?? path.join(ROOT, 'web', 'src', 'api', 'schema.d.ts'));

function run(command: string, args: string[]): void {
  const res = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit' });
  if (res.status !== 0) throw new Error(`${path.relative(ROOT, command) || command} ${args.join(' ')}: ${res.error ?? `exit ${res.status ?? res.signal}`}`);
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'imageboard-api-types-'));
try {
  const doc = path.join(dir, 'openapi.json');
  run(process.execPath, ['--import', 'tsx', path.join(ROOT, 'web', 'scripts', 'dump-openapi.ts'), doc]);
  run(path.join(ROOT, 'node_modules', '.bin', 'openapi-typescript'), [doc, '-o', out]);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
