// Writes the server's OpenAPI document to a file (for `npm run web:types`): builds the real app
// on a throwaway data directory and asks it for its document, without listening on a port.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../../src/app.ts';
import { testConfig } from '../../src/config.ts';

const out = process.argv[2];
if (!out) throw new Error('usage: dump-openapi.ts <out.json>');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'imageboard-openapi-'));
try {
  const app = await buildApp(testConfig({ dataDir }));
  await app.ready();
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, `${JSON.stringify(app.swagger(), null, 2)}\n`);
  await app.close();
} finally {
  fs.rmSync(dataDir, { recursive: true, force: true });
}
