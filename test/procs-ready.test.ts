import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { startedBy } from './procs.ts';

// Procs mode takes an instance as ready when /readyz answers 200 on its port: only when the process
// that answered (x-served-by) is the one it started or that one's worker, not another suite's server.
test('a readiness answer counts only from the started process or its worker', async () => {
  const child = spawn(
    process.execPath,
    [
      '-e',
      "const w = require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' }); console.log(w.pid); setInterval(() => {}, 1000);",
    ],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let worker = '';
  try {
    const [line] = (await once(child.stdout!, 'data')) as [Buffer];
    worker = line.toString().trim();
    assert.equal(startedBy(child, String(child.pid)), true, 'the started process');
    assert.equal(startedBy(child, worker), true, 'its worker');
    assert.equal(startedBy(child, String(process.pid)), false, 'another process (this one)');
    assert.equal(startedBy(child, '999999999'), false, 'a process that does not exist');
    assert.equal(startedBy(child, undefined), true, 'no header (NODE_ENV is not test): cannot be told');
  } finally {
    child.kill('SIGKILL');
    if (worker) process.kill(Number(worker), 'SIGKILL');
  }
});
