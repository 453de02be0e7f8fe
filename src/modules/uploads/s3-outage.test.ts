// A bucket that fails part-way through an upload, an avatar or a media read (requests refused by a
// fault put in the board's S3 client, or a store answering 503 SlowDown): the answer is 503 naming
// the media store, never 500, no post is left without its files, and the files already stored are
// deleted at once, or else found by `imageboard media check`.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { buildApp, type App } from '../../app.ts';
import { testConfig, tmpDirOf, type Config } from '../../config.ts';
import { S3MediaStore } from '../../storage/s3.ts';
import { bucketAway } from '../../storage/s3-outage.ts';
import { freshDatabase } from '../../../test/helpers.ts';
import { register, type Account } from '../../../test/auth-helpers.ts';
import { multipart } from '../../../test/multipart.ts';
import * as fx from '../../../test/media-fixtures.ts';
import { inBucket, startBucket } from '../../../test/s3.ts';
import { checkMedia } from './media-check.ts';

const bucket = await startBucket('faults');
const fresh = await freshDatabase('sqlite');
const config: Config = testConfig({ dataDir: fresh.dataDir, rateLimits: false, ...inBucket(bucket) });
let app: App;
let store: S3MediaStore;
let alice: Account;

before(async () => {
  app = await buildApp(config, { database: fresh.database });
  await app.ready();
  store = app.deps.media as S3MediaStore;
  alice = await register(app, 'alice');
});
after(async () => {
  await app?.close();
  await fresh.cleanup();
  await bucket.close();
});

/** Until the returned function is called, the board's requests to the bucket that `fails` names are refused, as by a bucket gone. */
function fault(fails: (command: string, key: string) => boolean): () => void {
  store.client.middlewareStack.add(
    (next, context) => async (args) => {
      const key = (args.input as { Key?: string }).Key ?? '';
      if (fails(context.commandName ?? '', key)) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
      return next(args);
    },
    { step: 'build', name: 'fault' },
  );
  return () => store.client.middlewareStack.remove('fault');
}

const upload = async (seed: number) => {
  const m = multipart({ tags: 'fault' }, [{ filename: 'f.png', data: await fx.png(seed, 40, 30) }]);
  return app.inject({ method: 'POST', url: '/api/upload', payload: m.payload, headers: { ...m.headers, ...alice.headers } });
};

function assertOutage(res: { statusCode: number; headers: Record<string, unknown>; json(): any }) {
  assert.equal(res.statusCode, 503, JSON.stringify(res.json()));
  assert.equal(res.json().unavailable, 'media store');
  assert.equal(res.headers['retry-after'], '5');
}

const postCount = async () =>
  Number(
    (
      await fresh.database
        .selectFrom('posts')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );
const tmpFiles = () => fs.readdirSync(tmpDirOf(config));

describe('a bucket failing part-way', () => {
  test('a thumbnail that cannot be stored: the upload answers 503, no post is made, and its original is deleted at once', async () => {
    const heal = fault((command, key) => command === 'PutObjectCommand' && key.startsWith('thumbs/'));
    try {
      assertOutage(await upload(1));
    } finally {
      heal();
    }
    assert.equal(await postCount(), 0);
    assert.deepEqual(await bucket.keys(), []);
    assert.deepEqual(tmpFiles(), [], 'no temporary file nor journal left');
    assert.equal((await upload(1)).statusCode, 201, 'the same file goes up once the bucket is back');
    await bucket.empty();
    await fresh.database.deleteFrom('post_tags').execute();
    await fresh.database.deleteFrom('posts').execute();
  });

  test('a bucket gone once the original is stored: 503, no post, and the original it could not delete is found by media check', async () => {
    const heal = fault((command, key) => !(command === 'PutObjectCommand' && key.startsWith('originals/')));
    try {
      assertOutage(await upload(2));
    } finally {
      heal();
    }
    assert.equal(await postCount(), 0);
    const left = await bucket.keys();
    assert.equal(left.length, 1);
    assert.match(left[0], /^originals\//);
    assert.deepEqual(tmpFiles(), []);
    const deps = { ...app.deps, config: { ...config, mediaGraceMinutes: 0 } };
    assert.deepEqual((await checkMedia(deps, true)).filesWithoutRows, left);
    assert.deepEqual(await bucket.keys(), [], 'media check --fix deleted it');
  });

  test('an avatar that cannot be stored answers 503 and the profile keeps its avatar', async () => {
    const heal = fault(() => true);
    try {
      const m = multipart({}, [{ name: 'avatar', filename: 'me.png', data: await fx.png(3) }]);
      assertOutage(await app.inject({ method: 'PATCH', url: '/api/users/me', payload: m.payload, headers: { ...m.headers, ...alice.headers } }));
    } finally {
      heal();
    }
    const user = await fresh.database.selectFrom('users').select('avatar_path').where('username', '=', 'alice').executeTakeFirstOrThrow();
    assert.equal(user.avatar_path, null);
    assert.deepEqual(await bucket.keys(), []);
  });

  test('media reads answer 503 while the bucket fails; a missing object is still a 404', async () => {
    await store.put('thumbs/aa/bb/there.webp', Buffer.from('x'));
    const heal = fault(() => true);
    try {
      assertOutage(await app.inject({ url: '/media/thumbs/aa/bb/there.webp' }));
      assertOutage(await app.inject({ url: '/media/thumbs/aa/bb/there.webp', headers: { range: 'bytes=0-0' } }));
    } finally {
      heal();
    }
    assert.equal((await app.inject({ url: '/media/thumbs/aa/bb/there.webp' })).statusCode, 200);
    assert.equal((await app.inject({ url: '/media/thumbs/aa/bb/none.webp' })).statusCode, 404);
    await bucket.empty();
  });

  test("every operation of the store fails as the media store's outage; a missing object stays missing", async () => {
    const gone = { name: 'Unavailable', dependency: 'media store' };
    const heal = fault(() => true);
    try {
      await assert.rejects(store.put('thumbs/aa/bb/x.webp', Buffer.from('x')), gone);
      const file = path.join(tmpDirOf(config), 'outage-test.webp');
      fs.writeFileSync(file, 'x');
      await assert.rejects(store.putFile('thumbs/aa/bb/x.webp', file), gone);
      fs.rmSync(file);
      await assert.rejects(store.read('thumbs/aa/bb/x.webp'), gone);
      await assert.rejects(store.stat('thumbs/aa/bb/x.webp'), gone);
      await assert.rejects(store.exists('thumbs/aa/bb/x.webp'), gone);
      await assert.rejects(store.delete('thumbs/aa/bb/x.webp'), gone);
      await assert.rejects(
        store.withLocalFile('thumbs/aa/bb/x.webp', async () => 1),
        gone,
      );
      await assert.rejects(store.fetch('thumbs/aa/bb/x.webp', {}), gone);
      await assert.rejects(store.check(), gone);
      await assert.rejects(async () => {
        for await (const _ of store.list());
      }, gone);
    } finally {
      heal();
    }
    await assert.rejects(store.read('thumbs/aa/bb/x.webp'), { code: 'ENOENT' });
    assert.equal(await store.stat('thumbs/aa/bb/x.webp'), null);
    assert.deepEqual(tmpFiles(), []);
  });
});

test('a store answering 503 SlowDown, after the SDK retried, is an outage; so are lost connections, timeouts and DNS failures, but not a 404 or a 403', async () => {
  let asked = 0;
  const slow = http.createServer((req, res) => {
    asked++;
    req.resume();
    res.writeHead(503, { 'content-type': 'application/xml' }).end('<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>');
  });
  await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
  const busy = new S3MediaStore({ ...bucket.settings, endpoint: `http://127.0.0.1:${(slow.address() as AddressInfo).port}` }, tmpDirOf(config));
  try {
    await assert.rejects(busy.put('thumbs/aa/bb/x.webp', Buffer.from('x')), { name: 'Unavailable', dependency: 'media store' });
    assert.ok(asked > 1, `the SDK tried again first (${asked} requests)`);
  } finally {
    await busy.close();
    await new Promise((r) => slow.close(r));
  }
  const status = (httpStatusCode: number) => ({ $metadata: { httpStatusCode } });
  assert.deepEqual([status(500), status(503), status(429), { code: 'ECONNRESET' }, { code: 'ENOTFOUND' }, { name: 'TimeoutError' }].map(bucketAway), [
    true,
    true,
    true,
    true,
    true,
    true,
  ]);
  assert.deepEqual([status(404), status(403), status(416), { code: 'ENOENT' }, new Error('x')].map(bucketAway), [false, false, false, false, false]);
});
