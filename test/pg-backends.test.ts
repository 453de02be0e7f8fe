import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { ServerBackends } from '../bench/pg-backends.ts';

const url = process.env.TEST_DATABASE_URL;
const BUSY = 'SELECT count(*) FROM generate_series(1, 4000000)';

// The bench's PostgreSQL column: a pool closing an idle connection during a run made it negative.
test("the bench's PostgreSQL CPU counts each backend's own use and does not fall when one closes", {
  skip: url ? false : 'TEST_DATABASE_URL is not set',
}, async () => {
  const backends = new ServerBackends(url!);
  const open = async () => {
    const c = new pg.Client({ connectionString: backends.serverUrl(url!) });
    await c.connect();
    return c;
  };
  const busy = await open();
  const idle = await open();
  try {
    await busy.query(BUSY);
    const first = await backends.cpuSeconds();
    await busy.query(BUSY);
    const second = await backends.cpuSeconds();
    assert.ok(second - first > 0.05, `the busy backend's second query counted (${first} -> ${second})`);
    await busy.end();
    await idle.query('SELECT 1');
    const third = await backends.cpuSeconds();
    assert.ok(third >= second, `after the busy backend closed: ${second} -> ${third}`);
  } finally {
    await idle.end();
    await backends.close();
  }
});

test("the bench's report names PostgreSQL's version and shared_buffers as the server has them", {
  skip: url ? false : 'TEST_DATABASE_URL is not set',
}, async () => {
  const backends = new ServerBackends(url!);
  const c = new pg.Client({ connectionString: url! });
  await c.connect();
  try {
    const { version, sharedBuffers } = await backends.settings();
    const [row] = (
      await c.query(`SELECT current_setting('server_version_num')::int AS num, setting::bigint * 8192 AS bytes FROM pg_settings WHERE name = 'shared_buffers'`)
    ).rows;
    assert.ok(version.startsWith(`${Math.floor(row.num / 10000)}.`), version);
    const [, n, unit] = /^(\d+)(kB|MB|GB|TB)$/.exec(sharedBuffers) ?? [];
    const factor = { kB: 2 ** 10, MB: 2 ** 20, GB: 2 ** 30, TB: 2 ** 40 }[unit as 'kB'];
    assert.equal(Number(n) * factor, Number(row.bytes), sharedBuffers);
  } finally {
    await c.end();
    await backends.close();
  }
});
