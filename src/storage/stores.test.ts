// What every media store promises (media-store.ts), on disk and in a bucket (s3rver on loopback).
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startBucket } from '../../test/s3.ts';
import { LocalMediaStore } from './local.ts';
import type { MediaStore } from './media-store.ts';
import { S3MediaStore } from './s3.ts';

const bucket = await startBucket('stores');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ib-stores-'));
after(async () => {
  await bucket.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function bytesOf(stream: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c);
  return Buffer.concat(chunks);
}

const tmpDir = path.join(dir, 'tmp');
// Parts of 5 MB (the smallest S3 takes), so a 12 MB file goes up in three.
const stores: [string, MediaStore][] = [
  ['disk', new LocalMediaStore(path.join(dir, 'media'), tmpDir)],
  ['bucket', new S3MediaStore(bucket.settings, tmpDir, 5 * 1024 * 1024)],
];

for (const [name, store] of stores) {
  describe(`media store: ${name}`, () => {
    test('put, read, stat, list and delete', async () => {
      await store.put('thumbs/aa/bb/one.webp', Buffer.from('one'));
      assert.deepEqual(await bytesOf(await store.read('thumbs/aa/bb/one.webp')), Buffer.from('one'));
      assert.equal((await store.stat('thumbs/aa/bb/one.webp'))?.size, 3);
      assert.equal(await store.stat('thumbs/aa/bb/none.webp'), null);
      await assert.rejects(store.read('thumbs/aa/bb/none.webp'), { code: 'ENOENT' });
      const listed = [];
      for await (const f of store.list()) listed.push([f.rel, f.size]);
      assert.deepEqual(listed, [['thumbs/aa/bb/one.webp', 3]]);
      await store.delete('thumbs/aa/bb/one.webp');
      assert.equal(await store.exists('thumbs/aa/bb/one.webp'), false);
      await store.delete('thumbs/aa/bb/one.webp'); // deleting what is gone is no error
    });

    test('a file larger than a part is stored whole from disk, and tools get a local copy that is removed after', async () => {
      const big = Buffer.alloc(12 * 1024 * 1024);
      for (let i = 0; i < big.length; i += 4096) big.writeUInt32BE(i, i);
      const file = path.join(dir, `${name}.upload`);
      fs.writeFileSync(file, big);
      await store.putFile('originals/cc/dd/big.webm', file);
      assert.equal((await store.stat('originals/cc/dd/big.webm'))?.size, big.length);
      assert.ok((await bytesOf(await store.read('originals/cc/dd/big.webm'))).equals(big));
      let seen = '';
      const size = await store.withLocalFile('originals/cc/dd/big.webm', async (local) => {
        seen = local;
        return fs.statSync(local).size;
      });
      assert.equal(size, big.length);
      // On disk the stored file itself; from a bucket a copy, gone once the work is done.
      assert.equal(fs.existsSync(seen), name === 'disk');
      assert.deepEqual(fs.readdirSync(tmpDir), []);
      await store.delete('originals/cc/dd/big.webm');
      fs.rmSync(file, { force: true });
    });

    test('check() resolves while the store can be used', async () => {
      await store.check();
    });
  });
}

test('check() of a bucket that does not exist rejects', async () => {
  const missing = new S3MediaStore({ ...bucket.settings, bucket: 'no-such-bucket' }, tmpDir);
  try {
    await assert.rejects(missing.check());
  } finally {
    await missing.close();
  }
});

test('a file whose PUT loses its connection on the way is sent again from the file, whole or in parts', async () => {
  // Between the store and s3rver: resets the connection of the first PUT it sees, of each kind.
  const resets = new Set<string>();
  const proxy = net.createServer((client) => {
    const upstream = net.connect(Number(new URL(bucket.settings.endpoint).port), '127.0.0.1');
    for (const s of [client, upstream]) s.on('error', () => {});
    client.once('data', (first: Buffer) => {
      const kind = /^PUT \S*partNumber=/.test(first.toString('latin1')) ? 'part' : first.toString('latin1').startsWith('PUT ') ? 'object' : null;
      if (kind && !resets.has(kind)) {
        resets.add(kind);
        client.resetAndDestroy();
        upstream.destroy();
        return;
      }
      upstream.write(first);
      client.pipe(upstream).pipe(client);
    });
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  const endpoint = `http://127.0.0.1:${(proxy.address() as net.AddressInfo).port}`;
  const store = new S3MediaStore({ ...bucket.settings, endpoint }, tmpDir, 5 * 1024 * 1024);
  try {
    const data = Buffer.alloc(6 * 1024 * 1024, 7);
    const file = path.join(dir, 'reset.upload');
    fs.writeFileSync(file, data.subarray(0, 100_000));
    await store.putFile('originals/ee/ff/whole.png', file);
    fs.writeFileSync(file, data);
    await store.putFile('originals/ee/ff/parts.webm', file);
    assert.deepEqual([...resets].sort(), ['object', 'part'], 'each kind of PUT was reset once');
    assert.ok((await bytesOf(await store.read('originals/ee/ff/whole.png'))).equals(data.subarray(0, 100_000)));
    assert.ok((await bytesOf(await store.read('originals/ee/ff/parts.webm'))).equals(data));
  } finally {
    await store.close();
    await new Promise((r) => proxy.close(r));
  }
});

test('check() of a media folder that cannot be written rejects', async () => {
  const folder = path.join(dir, 'gone', 'media');
  const local = new LocalMediaStore(folder, tmpDir);
  fs.rmSync(folder, { recursive: true });
  await assert.rejects(local.check());
});
