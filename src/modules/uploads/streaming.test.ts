import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { eachDatabase, listeningPort } from '../../../test/helpers.ts';
import { register } from '../../../test/auth-helpers.ts';
import * as fx from '../../../test/media-fixtures.ts';

/** Bytes already written to upload temp files, in every instance's DATA_DIR (the upload may be streaming to any). */
function tmpBytes(dataDirs: string[]): number {
  let n = 0;
  for (const dir of dataDirs.map((d) => path.join(d, 'tmp'))) {
    if (!fs.existsSync(dir)) continue;
    for (const f of fs.readdirSync(dir)) if (f.endsWith('.upload')) n += fs.statSync(path.join(dir, f)).size;
  }
  return n;
}

eachDatabase({ title: 'upload streaming', fleet: 'an upload is written to the temporary folder of the instance it streams to, whichever that is' }, (ctx) => {
  test('an upload is written to a temporary file while it arrives, and that file is gone afterwards', async () => {
    const alice = await register(ctx.app, 'streamer');
    const port = await listeningPort(ctx);
    // A real PNG followed by 2 MB of trailing bytes (kept under the image limit), sent in pieces.
    const png = Buffer.concat([await fx.png(71, 64, 64), randomBytes(2 * 1024 * 1024)]);
    const boundary = `----ib${randomBytes(6).toString('hex')}`;
    const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.png"\r\nContent-Type: image/png\r\n\r\n`);
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const body = Buffer.concat([head, png, tail]);
    const res = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/api/upload',
          headers: { ...alice.headers, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': body.length },
        },
        (r) => {
          let text = '';
          r.on('data', (d) => (text += d));
          r.on('end', () => resolve({ status: r.statusCode ?? 0, text }));
        },
      );
      req.on('error', reject);
      (async () => {
        const half = Math.floor(body.length / 2);
        req.write(body.subarray(0, half));
        // While the second half has not been sent, the first is already on disk, not in memory.
        const deadline = Date.now() + 10_000;
        while (tmpBytes(ctx.dataDirs) < half / 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
        seenWhileArriving = tmpBytes(ctx.dataDirs);
        req.end(body.subarray(half));
      })().catch(reject);
    });
    let seenWhileArriving = 0;
    const { status, text } = await res;
    // Bytes after IEND are ignored by decoders: the file is a valid 2 MB PNG.
    assert.equal(status, 201, text);
    assert.ok(seenWhileArriving >= body.length / 4, `bytes on disk mid-upload: ${seenWhileArriving}`);
    assert.equal(tmpBytes(ctx.dataDirs), 0, 'the temporary file is removed');
  });
});
