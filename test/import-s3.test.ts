// `imageboard import folder` into a board whose media are in a bucket (MEDIA_STORE=s3, s3rver on
// loopback), run as its own process while the board answers reads (issue 57, point 6): every
// answer during the import is a 200, and afterwards each post's original, thumbnail and preview are
// in the bucket and served, with nothing else in it and nothing written under DATA_DIR but the database.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { commandEnv, eachDatabase, tmpFiles } from './helpers.ts';
import { summaryCounts } from './import-helpers.ts';
import { png } from './media-fixtures.ts';
import { inBucket, startBucket } from './s3.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const RUN_MS = 40_000;
const hex = (algo: 'md5' | 'sha256', b: Buffer) => createHash(algo).update(b).digest('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const bucket = await startBucket();
after(() => bucket.close());

// Three files with .txt sidecars, and two from a Danbooru pool, 802 the child of 801.
const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'ib-import-s3-'));
const reports = fs.mkdtempSync(path.join(os.tmpdir(), 'ib-import-s3-reports-'));
after(() => {
  for (const dir of [folder, reports]) fs.rmSync(dir, { recursive: true, force: true });
});
const danbooru = JSON.parse(fs.readFileSync(path.join(ROOT, 'test/fixtures/sidecars/danbooru-pool.json'), 'utf8'));
/** The source's bytes, by file name. */
const files = new Map<string, Buffer>();
for (let i = 0; i < 3; i++) {
  const bytes = await png(8100 + i, 400, 300);
  files.set(`hydrus/sea_${i}.png`, bytes);
  fs.mkdirSync(path.join(folder, 'hydrus'), { recursive: true });
  fs.writeFileSync(path.join(folder, `hydrus/sea_${i}.png`), bytes);
  fs.writeFileSync(path.join(folder, `hydrus/sea_${i}.png.txt`), `artist:painter_${i}\nrating:safe\nbucket_test\n`);
}
for (const id of [801, 802]) {
  const bytes = await png(id, 400, 300);
  const name = `danbooru/pool/post_${id}.png`;
  files.set(name, bytes);
  fs.mkdirSync(path.join(folder, 'danbooru/pool'), { recursive: true });
  fs.writeFileSync(path.join(folder, name), bytes);
  fs.writeFileSync(path.join(folder, `${name}.json`), JSON.stringify({ ...danbooru, id, md5: hex('md5', bytes), parent_id: id === 802 ? 801 : null }));
}

eachDatabase(
  'import folder into a board whose media are in a bucket',
  (ctx) => {
    before(() => bucket.empty()); // the other engine's pass used it too

    test('the board answers every read during the import; then each post has its three files in the bucket, served from there', {
      timeout: 90_000,
    }, async (t) => {
      // commandEnv names the bucket on PostgreSQL only; the operator's settings name it on both engines.
      const env = { ...process.env, ...(await commandEnv(ctx)), ...bucket.env, LOG_LEVEL: 'error' };
      const report = path.join(reports, `${ctx.kind}.jsonl`);
      const args = ['bin/imageboard.js', 'import', 'folder', folder, '--report', report, '--concurrency', '1'];
      const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));

      // Reads all along the import: each a 200, and a post once listed stays listed.
      const totals: number[] = [];
      const deadline = Date.now() + RUN_MS;
      try {
        while (child.exitCode === null && child.signalCode === null) {
          assert.ok(Date.now() < deadline, `the import ended within ${RUN_MS / 1000} s:\n${out}`);
          assert.ok(totals.length < 5000, 'a bounded number of reads');
          const res = await ctx.app.inject({ url: '/api/posts?limit=100' });
          assert.equal(res.statusCode, 200, `read ${totals.length + 1} during the import: ${res.body}`);
          const total = (res.json() as { totalPosts: number }).totalPosts;
          assert.ok(total >= (totals.at(-1) ?? 0), `posts listed went from ${totals.at(-1)} to ${total}`);
          totals.push(total);
          await sleep(20);
        }
      } finally {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }
      const code = await exited;
      assert.equal(code, 0, out);
      assert.deepEqual(summaryCounts(out), { imported: 5, matched: 0, skipped: 0, failed: 0, unreadable: 0, read: 5 }, out);
      assert.ok(totals.length >= 5, `the board was read during the import (${totals.length} reads)`);

      const page = await ctx.app.inject({ url: '/api/posts?limit=100' });
      assert.equal(page.statusCode, 200);
      assert.equal((page.json() as { totalPosts: number }).totalPosts, files.size, 'the board lists every post after the import');

      // Each post's three files are in the bucket, and nothing else is.
      const posts = await ctx.database.selectFrom('posts').select(['id', 'sha256', 'file_path', 'thumb_path', 'preview_path', 'parent_id']).execute();
      assert.deepEqual(posts.map((p) => p.sha256).sort(), [...files.values()].map((b) => hex('sha256', b)).sort(), 'the posts are the files');
      const stored: string[] = [];
      for (const p of posts) {
        for (const rel of [p.file_path, p.thumb_path, p.preview_path]) {
          assert.ok(rel, `post ${p.id} has its original, thumbnail and preview`);
          assert.ok(await ctx.app.deps.media.exists(rel), `${rel} of post ${p.id} is in the bucket`);
          stored.push(rel);
        }
      }
      assert.deepEqual(await bucket.keys(), stored.sort(), 'the bucket holds the posts’ files and nothing else');

      // The board serves each original from the bucket: the bytes imported.
      const shaToBytes = new Map([...files.values()].map((b) => [hex('sha256', b), b]));
      for (const p of posts) {
        const res = await ctx.app.inject({ url: `/media/${p.file_path}` });
        assert.equal(res.statusCode, 200, `GET /media/${p.file_path}`);
        assert.equal(res.headers['content-type'], 'image/png');
        assert.deepEqual(res.rawPayload, shaToBytes.get(p.sha256), `the bytes of post ${p.id}`);
        const thumb = await ctx.app.inject({ url: `/media/${p.thumb_path}` });
        assert.equal(thumb.statusCode, 200, `GET /media/${p.thumb_path}`);
      }

      // The Danbooru pair: the child's parent, in the database and as the board shows it, and the pool in order of id.
      const bySha = new Map(posts.map((p) => [p.sha256, p]));
      const [parent, child802] = ['danbooru/pool/post_801.png', 'danbooru/pool/post_802.png'].map((f) => bySha.get(hex('sha256', files.get(f)!))!.id);
      assert.equal(bySha.get(hex('sha256', files.get('danbooru/pool/post_802.png')!))!.parent_id, parent, `802's parent is 801 in the database\n${out}`);
      const childPage = await ctx.app.inject({ url: `/api/posts/${child802}` });
      assert.equal(childPage.statusCode, 200);
      assert.equal((childPage.json() as { parentId: string | null }).parentId, String(parent), "802's parent is 801 on the post's page");
      const pool = await ctx.database
        .selectFrom('pool_posts')
        .innerJoin('pools', 'pools.id', 'pool_posts.pool_id')
        .select(['post_id'])
        .where('pools.name', '=', danbooru.pool.name.replace(/_/g, ' '))
        .orderBy('position')
        .execute();
      assert.deepEqual(
        pool.map((r) => r.post_id),
        [parent, child802],
        'the pool, by id',
      );

      // Under DATA_DIR: the database, and no media or temporary file.
      assert.equal(fs.existsSync(path.join(ctx.dataDir, 'media')), false, 'no media under DATA_DIR');
      assert.deepEqual(tmpFiles(ctx), []);
      t.diagnostic(`${totals.length} reads during the import, all 200; posts listed: ${[...new Set(totals)].join(' -> ')}`);
    });
  },
  inBucket(bucket),
);
