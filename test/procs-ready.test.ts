import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { startedBy } from './procs.ts';

// Procs mode takes an instance as ready when /readyz answers 200 on its port: only when the process
// that answered (x-served-by: its pid, and its thread after a dot) is the one it started, not
// another suite's server.
test('a readiness answer counts only from the started process, whichever of its threads answered', async () => {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  try {
    assert.equal(startedBy(child, String(child.pid)), true, 'the started process');
    assert.equal(startedBy(child, `${child.pid}.2`), true, 'a thread of it');
    assert.equal(startedBy(child, `${process.pid}.1`), false, 'a thread of another process (this one)');
    assert.equal(startedBy(child, '999999999'), false, 'a process that does not exist');
    assert.equal(startedBy(child, undefined), true, 'no header (NODE_ENV is not test): cannot be told');
  } finally {
    child.kill('SIGKILL');
  }
});
