import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { buildApp } from '../app.ts';
import { testConfig } from '../config.ts';
import { freshDatabase } from '../../test/helpers.ts';
import { stdoutLog } from './log-destination.ts';
import { loggerOptions, readableLine } from './log-format.ts';

const at = new Date(2026, 11, 6, 9, 5, 7).getTime();

test('a log line on a terminal reads as time, level, message and fields; a request as method, path, status and time', () => {
  assert.equal(
    readableLine(JSON.stringify({ level: 30, time: at, pid: 1, hostname: 'h', msg: 'No admin account yet' })),
    '09:05:07 INFO  No admin account yet',
  );
  assert.equal(
    readableLine(JSON.stringify({ level: 40, time: at, pid: 1, msg: 'readiness: check failed', check: 'database', ms: 3 })),
    '09:05:07 WARN  readiness: check failed  check=database ms=3',
  );
  assert.equal(
    readableLine(
      JSON.stringify({
        level: 30,
        time: at,
        reqId: 'r',
        req: { method: 'GET', url: '/api/posts' },
        res: { statusCode: 200 },
        responseTime: 3.21,
        msg: 'request completed',
      }),
    ),
    '09:05:07 INFO  GET /api/posts 200 3.2 ms',
  );
  const error = readableLine(
    JSON.stringify({ level: 50, time: at, msg: 'unhandled error', err: { message: 'boom', stack: 'Error: boom\n    at x (y.ts:1:1)' } }),
  );
  assert.equal(error, '09:05:07 ERROR unhandled error\nError: boom\n    at x (y.ts:1:1)');
  assert.equal(readableLine('not json'), 'not json');
});

test('the log is readable on a terminal and JSON otherwise, or goes where a test asks', () => {
  const tty = Object.assign(new PassThrough(), { isTTY: true }) as unknown as NodeJS.WriteStream;
  const pipe = Object.assign(new PassThrough(), { isTTY: false }) as unknown as NodeJS.WriteStream;
  assert.ok((loggerOptions('info', undefined, tty) as { stream?: unknown }).stream, 'a terminal gets the readable stream');
  assert.deepEqual(loggerOptions('info', undefined, pipe), { level: 'info', stream: stdoutLog() }, 'JSON to stdout otherwise');
  const given = new PassThrough();
  assert.equal((loggerOptions('info', given, tty) as { stream?: unknown }).stream, given);
});

test('one log line a request, with its request id, status and time; the health checks none', async () => {
  const fresh = await freshDatabase('sqlite');
  const logs = new PassThrough();
  let logged = '';
  logs.on('data', (d) => (logged += d));
  const app = await buildApp(testConfig({ dataDir: fresh.dataDir, logLevel: 'info' }), { database: fresh.database, logStream: logs, jobs: { run: false } });
  try {
    const res = await app.inject({ url: '/api/posts' });
    await app.inject({ url: '/healthz' });
    await app.inject({ url: '/readyz' });
    const id = res.headers['x-request-id'] as string;
    const lines = logged
      .split('\n')
      .filter((l) => l.includes('"reqId"'))
      .map((l) => JSON.parse(l));
    assert.equal(lines.length, 1, logged);
    assert.equal(lines[0].reqId, id);
    assert.equal(lines[0].msg, 'request completed');
    assert.deepEqual([lines[0].req.method, lines[0].req.url, lines[0].res.statusCode], ['GET', '/api/posts', 200]);
    assert.equal(typeof lines[0].responseTime, 'number');
  } finally {
    await app.close();
    await fresh.cleanup();
  }
});
