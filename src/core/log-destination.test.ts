import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

// /dev/full answers every write with ENOSPC, as a log file on a full disk does.
test('a log whose stdout cannot be written (a full disk) neither ends the process nor hangs its exit', {
  skip: fs.existsSync('/dev/full') ? false : 'no /dev/full here',
}, async () => {
  const script = `
    import Fastify from 'fastify';
    import { loggerOptions } from ${JSON.stringify(path.join(import.meta.dirname, 'log-format.ts'))};
    const app = Fastify({ logger: loggerOptions('info') });
    for (let i = 0; i < 2000; i++) app.log.info({ i, pad: 'x'.repeat(100) }, 'a line');
    setTimeout(() => {
      process.stderr.write('still running\\n');
      process.exit(0);
    }, 500);
  `;
  const full = fs.openSync('/dev/full', 'w');
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, stdio: ['ignore', full, 'pipe'] });
  fs.closeSync(full);
  let stderr = '';
  child.stderr?.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const [code, signal] = await new Promise<[number | null, string | null]>((resolve) => child.on('exit', (c, s) => resolve([c, s])));
  clearTimeout(timer);
  assert.equal(signal, null, `the process exited by itself: ${stderr}`);
  assert.equal(code, 0, stderr);
  assert.match(stderr, /still running/);
});
