// The fleet that TEST_FLEET puts behind ctx.app (test/fleet.ts), checked on its own in every run:
// if it quietly sent every request to one app, a fleet run would prove nothing.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testConfig } from '../src/config.ts';
import { freshDatabase, TestClock } from './helpers.ts';
import { declareFleetFile, fleetShape, startFleet, type Fleet } from './fleet.ts';
import { register } from './auth-helpers.ts';
import { multipart } from './multipart.ts';
import * as fx from './media-fixtures.ts';

const ready = process.env.TEST_DATABASE_URL && process.env.REDIS_URL;

test('TEST_FLEET reads as instances or instances x processes, and anything else is refused', () => {
  assert.equal(fleetShape(''), null);
  if (ready) {
    assert.deepEqual(fleetShape('3'), { instances: 3, workers: 1 });
    assert.deepEqual(fleetShape('2x2'), { instances: 2, workers: 2 });
  }
  for (const bad of ['1', 'two', '2x', '0x4', '2*2']) assert.throws(() => fleetShape(bad), /TEST_FLEET/, bad);
});

if (!ready) test('a fleet of two instances of two processes', { skip: 'needs TEST_DATABASE_URL and REDIS_URL' }, () => {});
else declareFleetFile();

describe('a fleet of two instances of two processes', { skip: !ready }, () => {
  let fleet: Fleet;
  let cleanup: () => Promise<void>;
  const served: number[] = [];
  before(async () => {
    const fresh = await freshDatabase('postgres');
    cleanup = fresh.cleanup;
    const config = testConfig({ dataDir: fresh.dataDir, rateLimits: false });
    fleet = await startFleet(
      { instances: 2, workers: 2 },
      { url: process.env.TEST_DATABASE_URL!, schema: fresh.schema!, config, appOptions: { clock: new TestClock() } },
    );
    fleet.apps.forEach((app, i) =>
      app.addHook('onRequest', async () => {
        served.push(i);
      }),
    );
    await fleet.app.ready();
  });
  after(async () => {
    await fleet?.close();
    await cleanup?.();
  });

  test('one address hands consecutive requests to the other instance, then to the other process of each', async () => {
    served.length = 0;
    for (let i = 0; i < 8; i++) assert.equal((await fleet.app.inject({ url: '/healthz' })).statusCode, 200);
    assert.deepEqual(served, [0, 2, 1, 3, 0, 2, 1, 3]);
    assert.equal(fleet.configs[0].dataDir, fleet.configs[1].dataDir, 'processes of one instance share its DATA_DIR');
    assert.notEqual(fleet.configs[0].dataDir, fleet.configs[2].dataDir, 'instances do not');
    assert.notEqual(fleet.databases[0], fleet.databases[1], 'every app has a connection of its own');
  });

  test('a setting a test changes on ctx.config is changed on every app', async () => {
    fleet.config.registration = 'closed';
    try {
      for (const [i, app] of fleet.apps.entries()) {
        const res = await app.inject({ method: 'POST', url: '/api/auth/register', payload: { username: `late${i}`, password: 'correct horse battery' } });
        assert.equal(res.statusCode, 403, `app ${i}: ${res.body}`);
      }
    } finally {
      fleet.config.registration = 'open';
    }
  });

  test('a session and an upload made on one instance are seen by the others; media are in the bucket', async () => {
    const alice = await register(fleet.app, 'alice');
    const m = multipart({ title: 'shared' }, [{ filename: 'a.png', data: await fx.png(7) }]);
    const up = await fleet.app.inject({ method: 'POST', url: '/api/upload', payload: m.payload, headers: { ...m.headers, ...alice.headers } });
    assert.equal(up.statusCode, 201, up.body);
    const { imageUrl } = up.json().post;
    for (const app of fleet.apps) {
      assert.equal((await app.inject({ url: '/api/auth/me', headers: alice.headers })).statusCode, 200);
      assert.equal((await app.inject({ url: imageUrl })).statusCode, 200, `${imageUrl} from every app`);
    }
    assert.equal(await fleet.apps[3].deps.media.exists(imageUrl.replace(/^\/media\//, '')), true);
  });
});
